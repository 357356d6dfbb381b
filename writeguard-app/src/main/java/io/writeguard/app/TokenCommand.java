package io.writeguard.app;

import io.writeguard.app.cli.UsageException;
import io.writeguard.app.cli.Durations;
import io.writeguard.app.serve.JwtAuth;
import io.writeguard.app.serve.JwtSecret;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code writeguard token --user NAME}: prints a bearer token for {@code writeguard serve},
 * signed HS256 with the same secret ({@code $WRITEGUARD_JWT_SECRET} or
 * {@code --jwt-secret-file}), subject NAME, valid for {@code --ttl}. The token is the only
 * (so also the last) line on stdout:
 *
 * <pre>{@code
 * curl -H "Authorization: Bearer $(writeguard token --user alice)" ...
 * }</pre>
 *
 * Exit status 2 for a missing or short secret or an unusable user name. Not thread-safe:
 * picocli makes one instance per invocation.
 */
@Command(
    name = "token",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = {
      "Prints a bearer token (JWT, HS256) for 'writeguard serve' on stdout.",
      "Uses the same secret as serve: $" + JwtSecret.ENV + " or --jwt-secret-file."
    })
public final class TokenCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(names = "--user", paramLabel = "NAME", required = true,
      description = "The user id the token carries as its subject.")
  String user;

  @Option(names = "--ttl", paramLabel = "TIME", defaultValue = "60m",
      description = "How long the token is valid: 500ms, 30s, 60m (default: ${DEFAULT-VALUE}).")
  String ttl;

  @Option(names = "--jwt-secret-file", paramLabel = "FILE",
      description = "File holding the HS256 secret (default: $" + JwtSecret.ENV + ").")
  Path jwtSecretFile;

  @Override
  public Integer call() {
    try {
      JwtAuth.checkUser(user);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--user: " + e.getMessage(), e);
    }
    Duration validFor = Durations.parse("--ttl", ttl, false);
    JwtSecret secret = JwtSecret.load(jwtSecretFile, System.getenv());
    PrintWriter out = spec.commandLine().getOut();
    out.println(new JwtAuth(secret).issue(user, validFor));
    out.flush();
    return 0;
  }
}
