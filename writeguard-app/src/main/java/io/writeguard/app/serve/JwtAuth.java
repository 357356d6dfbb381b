package io.writeguard.app.serve;

import com.auth0.jwt.JWT;
import com.auth0.jwt.JWTVerifier;
import com.auth0.jwt.algorithms.Algorithm;
import com.auth0.jwt.exceptions.AlgorithmMismatchException;
import com.auth0.jwt.exceptions.JWTDecodeException;
import com.auth0.jwt.exceptions.JWTVerificationException;
import com.auth0.jwt.exceptions.MissingClaimException;
import com.auth0.jwt.exceptions.SignatureVerificationException;
import com.auth0.jwt.exceptions.TokenExpiredException;
import com.auth0.jwt.interfaces.DecodedJWT;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Who is calling: the {@code sub} of an {@code Authorization: Bearer <JWT>} token signed with
 * HS256 and the shared {@link JwtSecret}.
 *
 * <p>The seed took the user from {@code req.user}; here the user id comes only from a token
 * we can verify, never from the path or the body, so one user cannot mark an item read in
 * another's name. A token must be HS256 (so {@code alg: none} and other algorithms are
 * refused before any signature check), carry our issuer, a non-blank {@code sub} of at most
 * {@value #MAX_USER_LENGTH} characters without control characters, and an {@code exp} that
 * has not passed ({@value #LEEWAY_SECONDS} s leeway for clock skew). Tokens without
 * {@code exp} are refused: a token that never expires cannot be withdrawn.
 *
 * <p>Thread-safe: the verifier is immutable.
 */
public final class JwtAuth {
  /** The {@code iss} we sign and require. */
  public static final String ISSUER = "writeguard";
  /** Longest accepted user id. */
  public static final int MAX_USER_LENGTH = 128;
  static final long LEEWAY_SECONDS = 5;
  private static final String BEARER = "Bearer ";

  private final Algorithm algorithm;
  private final JWTVerifier verifier;
  private final Clock clock;

  public JwtAuth(JwtSecret secret, Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.algorithm = Algorithm.HMAC256(secret.bytes());
    this.verifier = ((JWTVerifier.BaseVerification) JWT.require(algorithm)
            .withIssuer(ISSUER)
            .withClaimPresence("sub")
            .withClaimPresence("exp")
            .acceptLeeway(LEEWAY_SECONDS))
        .build(clock);
  }

  public JwtAuth(JwtSecret secret) {
    this(secret, Clock.systemUTC());
  }

  /**
   * A token for {@code user}, valid for {@code ttl} from now.
   *
   * @throws IllegalArgumentException naming the user or ttl when they are unusable
   */
  public String issue(String user, Duration ttl) {
    checkUser(user);
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("token ttl must be positive, was " + ttl);
    }
    Instant now = clock.instant();
    return JWT.create()
        .withIssuer(ISSUER)
        .withSubject(user)
        .withIssuedAt(now)
        .withExpiresAt(now.plus(ttl))
        .sign(algorithm);
  }

  /**
   * The user named by the request's {@code Authorization} header.
   *
   * @param authorization the header's value, or null when the request had none
   * @throws ApiException with status 401 saying what was wrong (never echoing the token)
   */
  public String authenticate(String authorization) {
    if (authorization == null || authorization.isBlank()) {
      throw unauthorized("missing Authorization header (expected 'Bearer <token>')");
    }
    if (!authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      throw unauthorized("Authorization header is not 'Bearer <token>'");
    }
    String token = authorization.substring(BEARER.length()).trim();
    DecodedJWT jwt;
    try {
      jwt = verifier.verify(token);
    } catch (AlgorithmMismatchException e) {
      throw unauthorized("token is not signed with HS256");
    } catch (SignatureVerificationException e) {
      throw unauthorized("token signature does not verify");
    } catch (TokenExpiredException e) {
      throw unauthorized("token expired at " + e.getExpiredOn());
    } catch (MissingClaimException e) {
      throw unauthorized("token lacks the '" + e.getClaimName() + "' claim");
    } catch (JWTDecodeException e) {
      throw unauthorized("malformed token");
    } catch (JWTVerificationException e) {
      throw unauthorized("token rejected: " + e.getMessage());
    }
    String user = jwt.getSubject();
    try {
      checkUser(user);
    } catch (IllegalArgumentException e) {
      throw unauthorized("token subject is not a usable user id");
    }
    return user;
  }

  /**
   * Checks a user id: non-blank, at most {@value #MAX_USER_LENGTH} chars, no control chars.
   *
   * @throws IllegalArgumentException naming the problem
   */
  public static void checkUser(String user) {
    if (user == null || user.isBlank()) {
      throw new IllegalArgumentException("user must not be blank, was '" + user + "'");
    }
    if (user.length() > MAX_USER_LENGTH) {
      throw new IllegalArgumentException("user must be at most " + MAX_USER_LENGTH
          + " characters, was " + user.length());
    }
    if (user.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException("user must not contain control characters, was '"
          + user.replaceAll("\\p{Cntrl}", "?") + "'");
    }
  }

  private static ApiException unauthorized(String message) {
    return ApiException.unauthorized(message);
  }
}
