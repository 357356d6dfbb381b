package io.writeguard.app.lab.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Properties;

/**
 * Chart.js (MIT licence, banner kept) from the {@code org.webjars.npm:chart.js} webjar on the
 * classpath, to inline into the HTML report so the page needs no network. The version is read
 * from the webjar's {@code pom.properties}, so upgrading the dependency needs no code change.
 * Stateless; the script is read on each call (once per report).
 */
final class ChartJs {
  private static final String POM =
      "META-INF/maven/org.webjars.npm/chart.js/pom.properties";

  private ChartJs() {}

  /** The webjar's version, e.g. {@code 4.4.1}. */
  static String version() {
    Properties p = new Properties();
    try (InputStream in = open(POM)) {
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + POM, e);
    }
    String v = p.getProperty("version");
    if (v == null || v.isBlank()) {
      throw new IllegalStateException(POM + " names no version");
    }
    return v.trim();
  }

  /**
   * The UMD build, safe to put between {@code <script>} tags: its source-map comment is
   * dropped (the map is not shipped), and a script that could close the tag early is refused.
   */
  static String script() {
    String path = "META-INF/resources/webjars/chart.js/" + version() + "/dist/chart.umd.js";
    String js;
    try (InputStream in = open(path)) {
      js = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path, e);
    }
    js = js.replaceAll("(?m)^//# sourceMappingURL=.*$", "");
    String lower = js.toLowerCase(Locale.ROOT);
    if (lower.contains("</script") || lower.contains("<!--")) {
      throw new IllegalStateException(path + " contains '</script' or '<!--' and cannot be"
          + " inlined into an HTML page as it is");
    }
    return js;
  }

  private static InputStream open(String path) throws IOException {
    InputStream in = ChartJs.class.getClassLoader().getResourceAsStream(path);
    if (in == null) {
      throw new IOException("'" + path + "' is not on the classpath (the chart.js webjar is"
          + " missing)");
    }
    return in;
  }
}
