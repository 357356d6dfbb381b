package io.writeguard.app.lab;

/**
 * What a scenario needs to know about the run: how many concurrent clients, how many hot
 * documents, and the seed every client's operation stream is drawn from.
 */
public record ScenarioSettings(int clients, int docs, long seed) {}
