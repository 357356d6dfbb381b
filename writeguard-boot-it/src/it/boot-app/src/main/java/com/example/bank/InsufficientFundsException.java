package com.example.bank;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

@ResponseStatus(HttpStatus.UNPROCESSABLE_CONTENT)
public class InsufficientFundsException extends RuntimeException {
  public InsufficientFundsException(String id, long balance, long amount) {
    super("account " + id + " has " + balance + ", cannot pay " + amount);
  }
}
