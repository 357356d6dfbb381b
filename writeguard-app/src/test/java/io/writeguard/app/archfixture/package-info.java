/**
 * Classes that break the app's layering rules on purpose, for {@code AppLayersTest} to show that
 * each rule can fail: {@code a} and {@code b} use each other; {@link
 * io.writeguard.app.archfixture.Entry} (in this, the root package, like {@code Main}) names
 * {@code tool.Tool} in its command annotation while {@code Tool} names {@code Entry} back; in
 * {@code lab}, the API uses the runner and one scenario uses another and the runner. Never run;
 * in test sources only, so the real check does not see them.
 */
package io.writeguard.app.archfixture;
