package io.writeguard.app.lab;

/**
 * Which measurement the lab is at: a strategy, at a client count, in a round. Immutable.
 *
 * @param round 1-based
 */
public record LabStep(String strategy, int clients, int round, int rounds) {}
