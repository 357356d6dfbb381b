package com.example.bank;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** 409 for a conflict, 503 for an outage, as docs/spring-boot.md shows. */
@RestControllerAdvice
class DataAccessStatus {
  @ExceptionHandler({OptimisticLockingFailureException.class,
      PessimisticLockingFailureException.class})
  ResponseEntity<String> conflict(DataAccessException e) {
    return ResponseEntity.status(HttpStatus.CONFLICT).body(e.getMessage());
  }

  @ExceptionHandler({TransientDataAccessException.class,
      CannotAcquireLockException.class,
      DataAccessResourceFailureException.class})
  ResponseEntity<String> unavailable(DataAccessException e) {
    return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
        .header(HttpHeaders.RETRY_AFTER, "1").body(e.getMessage());
  }
}
