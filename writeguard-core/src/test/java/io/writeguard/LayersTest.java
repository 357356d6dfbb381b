package io.writeguard;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Core's packages follow the layer order in docs/architecture.md: each may use only the
 * packages below it, so no two depend on each other and {@code internal}, the ground floor,
 * uses nothing of the library. The same rules run over {@code io.writeguard.archfixture},
 * which breaks them the way core once did, to show that they can fail.
 */
class LayersTest {
  /** Bottom to top; "" is the root package (clock, sleeper, exceptions). */
  static final List<String> LAYERS = List.of(
      "internal", "", "typed", "path", "version", "monitor", "combine", "atomic", "lock",
      "update", "idempotency", "adaptive", "tx", "counter", "deadline");

  private static final String CORE = "io.writeguard";
  private static final String FIXTURE = "io.writeguard.archfixture";

  /** Core's main classes only: not its tests, not the modules on its test classpath. */
  private static final JavaClasses CORE_CLASSES = new ClassFileImporter()
      .importUrl(Ticker.class.getProtectionDomain().getCodeSource().getLocation());
  private static final JavaClasses FIXTURE_CLASSES =
      new ClassFileImporter().importPackages(FIXTURE);

  /** Each layer may use the layers below it; every class of {@code root} is in a layer. */
  static LayeredArchitecture layers(String root, boolean optional) {
    LayeredArchitecture rule = layeredArchitecture().consideringOnlyDependenciesInLayers()
        .withOptionalLayers(optional);
    for (String layer : LAYERS) {
      rule = rule.layer(name(layer)).definedBy(layer.isEmpty() ? root : root + "." + layer + "..");
    }
    for (int i = 0; i < LAYERS.size(); i++) {
      String[] below = LAYERS.subList(0, i).stream().map(LayersTest::name).toArray(String[]::new);
      rule = i == 0 ? rule.whereLayer(name(LAYERS.get(i))).mayNotAccessAnyLayer()
          : rule.whereLayer(name(LAYERS.get(i))).mayOnlyAccessLayers(below);
    }
    return optional ? rule : rule.ensureAllClassesAreContainedInArchitecture();
  }

  static ArchRule noCycles(String root) {
    return slices().matching(root + ".(*)..").should().beFreeOfCycles();
  }

  static ArchRule internalUsesNothingAbove(String root) {
    return noClasses().that().resideInAPackage(root + ".internal..")
        .should().dependOnClassesThat(resideInAPackage(root + "..")
            .and(resideInAPackage(root + ".internal..").negate()))
        .because("internal is the ground floor: it imports nothing above it");
  }

  private static String name(String layer) {
    return layer.isEmpty() ? "root" : layer;
  }

  @Test
  void corePackagesFollowTheLayerOrder() {
    layers(CORE, false).check(CORE_CLASSES);
  }

  @Test
  void corePackagesHaveNoCycle() {
    noCycles(CORE).check(CORE_CLASSES);
  }

  @Test
  void internalImportsNothingAboveIt() {
    internalUsesNothingAbove(CORE).check(CORE_CLASSES);
  }

  @Test
  void theCoreCheckSeesEveryPackage() {
    // A rule over an empty or partial import would pass whatever the code does.
    assertThat(CORE_CLASSES.stream().map(c -> c.getPackageName()).distinct())
        .contains(CORE + ".internal", CORE + ".lock", CORE + ".update", CORE)
        .noneMatch(p -> p.startsWith(FIXTURE));
  }

  @Test
  void theLayerRuleFailsOnAnArrowUpward() {
    EvaluationResult result = layers(FIXTURE, true).evaluate(FIXTURE_CLASSES);

    assertThat(result.hasViolation()).isTrue();
    assertThat(String.join("\n", result.getFailureReport().getDetails()))
        .contains("archfixture.internal.Engine").contains("archfixture.lock.Handle")
        .contains("archfixture.lock.Handle.documents()");
  }

  @Test
  void theCycleRuleFailsOnLockAndUpdateUsingEachOther() {
    EvaluationResult result = noCycles(FIXTURE).evaluate(FIXTURE_CLASSES);

    assertThat(result.hasViolation()).isTrue();
    assertThat(String.join("\n", result.getFailureReport().getDetails()))
        .contains("Cycle detected: Slice lock").contains("Slice update")
        .contains("Handle.documents()").contains("Documents.lock()");
  }

  @Test
  void theInternalRuleFailsOnInternalUsingTheLockApi() {
    EvaluationResult result = internalUsesNothingAbove(FIXTURE).evaluate(FIXTURE_CLASSES);

    assertThat(result.hasViolation()).isTrue();
    assertThat(String.join("\n", result.getFailureReport().getDetails()))
        .contains("archfixture.internal.Engine").contains("archfixture.lock.Handle");
  }
}
