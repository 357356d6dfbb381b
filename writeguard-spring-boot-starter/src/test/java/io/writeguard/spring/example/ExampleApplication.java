package io.writeguard.spring.example;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A small Spring Boot application that uses the starter as a user would. */
@SpringBootApplication
public class ExampleApplication {}
