package com.example.bank;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/accounts/{id}")
public class AccountController {
  private final AccountService accounts;

  public AccountController(AccountService accounts) {
    this.accounts = accounts;
  }

  @PostMapping
  public ResponseEntity<String> open(@PathVariable String id) {
    accounts.open(id);
    return ResponseEntity.status(HttpStatus.CREATED).body(id);
  }

  @GetMapping
  public String balance(@PathVariable String id) {
    return Long.toString(accounts.find(id).getBalance());
  }

  @PostMapping("/deposit")
  public String deposit(@PathVariable String id, @RequestParam long amount) {
    return Long.toString(accounts.deposit(id, amount).getBalance());
  }

  @PostMapping("/withdraw")
  public String withdraw(@PathVariable String id, @RequestParam long amount) {
    return Long.toString(accounts.withdraw(id, amount).getBalance());
  }
}
