package io.writeguard.app;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The app's packages have no cycle, and the lab is built on its API: {@code lab.api} uses
 * nothing else of the lab, and a scenario package uses the lab through {@code lab.api} only
 * (docs/lab.md, "Adding a scenario or a strategy"). The same rules run over
 * {@code io.writeguard.app.archfixture}, which breaks each of them, to show that they can fail.
 */
class AppLayersTest {
  private static final String APP = "io.writeguard.app";
  private static final String FIXTURE = "io.writeguard.app.archfixture";
  /** The lab's own packages; every other package under {@code lab} is a scenario. */
  private static final Set<String> LAB_PACKAGES = Set.of("api", "plan", "result", "report");

  /** The app's main classes: not its tests, and never the fixture. */
  private static final JavaClasses APP_CLASSES = new ClassFileImporter()
      .withImportOption(new ImportOption.DoNotIncludeTests())
      .withImportOption(location -> !location.contains("/archfixture/"))
      .importPackages(APP);
  private static final JavaClasses FIXTURE_CLASSES =
      new ClassFileImporter().importPackages(FIXTURE);

  /**
   * No two packages of {@code root} use each other, {@code root} itself included. Slices are
   * matched from the parent: {@code root.(**)} would leave out the classes directly in
   * {@code root} ({@code Main}), and with them the cycles they close.
   */
  static ArchRule noCycles(String root) {
    return slices().matching(root.substring(0, root.lastIndexOf('.')) + ".(**)")
        .should().beFreeOfCycles();
  }

  static ArchRule labApiStandsAlone(String root) {
    String lab = root + ".lab";
    return noClasses().that().resideInAPackage(lab + ".api..")
        .should().dependOnClassesThat(resideInAPackage(lab + "..")
            .and(resideInAPackage(lab + ".api..").negate()))
        .because("the lab's API must not lead back to the plan, the runner or a scenario");
  }

  static ArchRule scenariosUseTheApiOnly(String root) {
    String lab = root + ".lab";
    DescribedPredicate<JavaClass> inAScenario =
        DescribedPredicate.describe("reside in a scenario package of " + lab,
            c -> scenarioOf(lab, c.getPackageName()) != null);
    return classes().that(inAScenario).should(
        new ArchCondition<JavaClass>("use no package of the lab but " + lab + ".api") {
          @Override
          public void check(JavaClass c, ConditionEvents events) {
            String own = scenarioOf(lab, c.getPackageName());
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
              String target = d.getTargetClass().getPackageName();
              boolean inLab = target.equals(lab) || target.startsWith(lab + ".");
              boolean api = target.equals(lab + ".api") || target.startsWith(lab + ".api.");
              if (inLab && !api && !own.equals(scenarioOf(lab, target))) {
                events.add(SimpleConditionEvent.violated(d, d.getDescription()));
              }
            }
          }
        });
  }

  /** The scenario {@code pkg} belongs to ({@code counter} for {@code lab.counter}), or null. */
  private static String scenarioOf(String lab, String pkg) {
    if (!pkg.startsWith(lab + ".")) {
      return null;
    }
    String first = pkg.substring(lab.length() + 1).split("\\.")[0];
    return LAB_PACKAGES.contains(first) ? null : first;
  }

  @Test
  void appPackagesHaveNoCycle() {
    noCycles(APP).check(APP_CLASSES);
  }

  @Test
  void theLabApiUsesNothingElseOfTheLab() {
    labApiStandsAlone(APP).check(APP_CLASSES);
  }

  @Test
  void scenariosUseTheLabThroughItsApiOnly() {
    scenariosUseTheApiOnly(APP).check(APP_CLASSES);
  }

  @Test
  void theAppCheckSeesEveryPackage() {
    // A rule over an empty or partial import would pass whatever the code does.
    assertThat(APP_CLASSES.stream().map(JavaClass::getPackageName).distinct())
        .contains(APP, APP + ".chaos", APP + ".cli", APP + ".lab", APP + ".lab.api",
            APP + ".lab.counter", APP + ".lab.readinfo", APP + ".lab.transfer")
        .noneMatch(p -> p.startsWith(FIXTURE));
    assertThat(APP_CLASSES.contain(Main.class)).isTrue();
  }

  @Test
  void theCycleRuleFailsOnTwoPackagesUsingEachOther() {
    EvaluationResult result = noCycles(FIXTURE).evaluate(FIXTURE_CLASSES);

    assertThat(result.hasViolation()).isTrue();
    assertThat(details(result)).contains("Slice archfixture.a").contains("Slice archfixture.b")
        .contains("A.partner()").contains("B.partner()");
  }

  @Test
  void theCycleRuleSeesTheRootPackageAndAnnotations() {
    // Main's package against a command that names Main: the cycle runs through an annotation.
    EvaluationResult result = noCycles(FIXTURE).evaluate(FIXTURE_CLASSES);

    assertThat(details(result)).contains("Slice archfixture ->").contains("Slice archfixture.tool")
        .contains("archfixture.Entry").contains("Tool.childMainClass()");
  }

  @Test
  void theApiRuleFailsOnTheApiUsingTheRunner() {
    EvaluationResult result = labApiStandsAlone(FIXTURE).evaluate(FIXTURE_CLASSES);

    assertThat(result.hasViolation()).isTrue();
    assertThat(details(result)).contains("lab.api.Contract").contains("lab.Runner");
  }

  @Test
  void theScenarioRuleFailsOnAScenarioUsingAnotherOrTheRunner() {
    EvaluationResult result = scenariosUseTheApiOnly(FIXTURE).evaluate(FIXTURE_CLASSES);

    assertThat(result.hasViolation()).isTrue();
    assertThat(details(result)).contains("lab.alpha.Alpha").contains("lab.beta.Beta")
        .contains("lab.Runner").doesNotContain("lab.beta.Beta.docs() calls")
        .doesNotContain("implements interface io.writeguard.app.archfixture.lab.api.Contract");
  }

  private static String details(EvaluationResult result) {
    return String.join("\n", result.getFailureReport().getDetails());
  }
}
