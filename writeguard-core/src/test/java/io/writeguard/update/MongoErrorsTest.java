package io.writeguard.update;

import static io.writeguard.update.MongoErrors.Kind.DOCUMENT_VALIDATION;
import static io.writeguard.update.MongoErrors.Kind.DUPLICATE_KEY;
import static io.writeguard.update.MongoErrors.Kind.NOT_APPLIED_TRANSIENT;
import static io.writeguard.update.MongoErrors.Kind.OUTCOME_UNKNOWN;
import static io.writeguard.update.MongoErrors.Kind.PERMANENT;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoNodeIsRecoveringException;
import com.mongodb.MongoNotPrimaryException;
import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.MongoSecurityException;
import com.mongodb.MongoSocketOpenException;
import com.mongodb.MongoSocketReadException;
import com.mongodb.MongoSocketReadTimeoutException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.MongoWriteConcernException;
import com.mongodb.MongoWriteException;
import com.mongodb.ServerAddress;
import com.mongodb.WriteConcernResult;
import com.mongodb.WriteError;
import com.mongodb.bulk.WriteConcernError;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class MongoErrorsTest {
  private static final ServerAddress ADDRESS = new ServerAddress("db.example", 27017);

  static MongoCommandException command(int code, String codeName) {
    return new MongoCommandException(BsonDocument.parse(
        "{ok: 0, code: " + code + ", codeName: '" + codeName + "', errmsg: 'boom'}"), ADDRESS);
  }

  static MongoWriteException writeError(int code) {
    return new MongoWriteException(
        new WriteError(code, "E" + code + " boom", new BsonDocument()), ADDRESS, List.of());
  }

  @Test
  void duplicateKeysByTheDriversCategory() {
    assertThat(MongoErrors.classifyWrite(writeError(11000))).isEqualTo(DUPLICATE_KEY);
    assertThat(MongoErrors.classifyWrite(writeError(11001))).isEqualTo(DUPLICATE_KEY);
    assertThat(MongoErrors.classifyWrite(command(11000, "DuplicateKey")))
        .isEqualTo(DUPLICATE_KEY);
  }

  @Test
  void documentValidationFailure() {
    assertThat(MongoErrors.classifyWrite(writeError(121))).isEqualTo(DOCUMENT_VALIDATION);
    assertThat(MongoErrors.classifyWrite(command(121, "DocumentValidationFailure")))
        .isEqualTo(DOCUMENT_VALIDATION);
  }

  @Test
  void errorsThatCertainlyWroteNothingAreRetryable() {
    assertThat(MongoErrors.classifyWrite(new MongoTimeoutException("no server selected")))
        .isEqualTo(NOT_APPLIED_TRANSIENT);
    assertThat(MongoErrors.classifyWrite(new MongoSocketOpenException("refused", ADDRESS)))
        .isEqualTo(NOT_APPLIED_TRANSIENT);
    MongoException labelled = new MongoSocketReadException("reset", ADDRESS);
    labelled.addLabel("NoWritesPerformed");
    assertThat(MongoErrors.classifyWrite(labelled)).isEqualTo(NOT_APPLIED_TRANSIENT);
  }

  @Test
  void notPrimaryMayBeTheDriversRetryOfAnAppliedWriteSoItIsNotRetried() {
    // Regression: with retryable writes the driver reports the second attempt's error; a
    // first attempt that broke after sending may have been applied.
    assertThat(MongoErrors.classifyWrite(new MongoNotPrimaryException(BsonDocument.parse(
            "{ok: 0, code: 10107, codeName: 'NotWritablePrimary'}"), ADDRESS)))
        .isEqualTo(OUTCOME_UNKNOWN);
    assertThat(MongoErrors.classifyWrite(new MongoNodeIsRecoveringException(BsonDocument.parse(
            "{ok: 0, code: 91, codeName: 'ShutdownInProgress'}"), ADDRESS)))
        .isEqualTo(OUTCOME_UNKNOWN);
    // ...but a failed read of it changes nothing and is worth repeating.
    assertThat(MongoErrors.isTransientRead(new MongoNotPrimaryException(BsonDocument.parse(
            "{ok: 0, code: 10107, codeName: 'NotWritablePrimary'}"), ADDRESS))).isTrue();
  }

  @Test
  void errorsAfterWhichTheWriteMayHaveHappenedAreNotRetryable() {
    assertThat(MongoErrors.classifyWrite(new MongoSocketReadException("reset", ADDRESS)))
        .isEqualTo(OUTCOME_UNKNOWN);
    assertThat(MongoErrors.classifyWrite(
            new MongoSocketReadTimeoutException("timeout", ADDRESS, new RuntimeException())))
        .isEqualTo(OUTCOME_UNKNOWN);
    assertThat(MongoErrors.classifyWrite(new MongoOperationTimeoutException("timeoutMS")))
        .isEqualTo(OUTCOME_UNKNOWN);
    assertThat(MongoErrors.classifyWrite(
            new MongoInterruptedException("interrupted", new InterruptedException())))
        .isEqualTo(OUTCOME_UNKNOWN);
    assertThat(MongoErrors.classifyWrite(new MongoWriteConcernException(
            new WriteConcernError(64, "WriteConcernFailed", "waiting for replication timed out",
                new BsonDocument()),
            WriteConcernResult.acknowledged(1, true, null), ADDRESS, List.of())))
        .isEqualTo(OUTCOME_UNKNOWN);
    // A router that lost its shard mid-write: labelled retryable, but it may have applied.
    MongoCommandException hostUnreachable = command(6, "HostUnreachable");
    hostUnreachable.addLabel("RetryableWriteError");
    assertThat(MongoErrors.classifyWrite(hostUnreachable)).isEqualTo(OUTCOME_UNKNOWN);
    // The server ran out of the maxTimeMS a deadline sent with the write, if the driver passes
    // it on as it came (as a command error or a write error) instead of as its own timeout.
    assertThat(MongoErrors.classifyWrite(command(50, "MaxTimeMSExpired")))
        .isEqualTo(OUTCOME_UNKNOWN);
    assertThat(MongoErrors.classifyWrite(writeError(50))).isEqualTo(OUTCOME_UNKNOWN);
  }

  @Test
  void everythingElseIsPermanent() {
    assertThat(MongoErrors.classifyWrite(command(66, "ImmutableField"))).isEqualTo(PERMANENT);
    assertThat(MongoErrors.classifyWrite(writeError(2))).isEqualTo(PERMANENT);
    assertThat(MongoErrors.classifyWrite(new MongoSecurityException(null, "auth failed")))
        .isEqualTo(PERMANENT);
    assertThat(MongoErrors.classifyWrite(new IllegalStateException("not mongo")))
        .isEqualTo(PERMANENT);
  }

  @Test
  void readsAreRetriedOnAnyTransientError() {
    assertThat(MongoErrors.isTransientRead(new MongoSocketReadException("reset", ADDRESS)))
        .isTrue();
    assertThat(MongoErrors.isTransientRead(new MongoTimeoutException("no server"))).isTrue();
    assertThat(MongoErrors.isTransientRead(new MongoOperationTimeoutException("t"))).isTrue();
    MongoCommandException labelled = command(189, "PrimarySteppedDown");
    labelled.addLabel("RetryableWriteError");
    assertThat(MongoErrors.isTransientRead(labelled)).isTrue();
    assertThat(MongoErrors.isTransientRead(command(2, "BadValue"))).isFalse();
    assertThat(MongoErrors.isTransientRead(new IllegalStateException("x"))).isFalse();
  }
}
