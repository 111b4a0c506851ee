package io.partita.storage.table;

/**
 * A table's point-in-time recovery: whether it is on, its recovery period ({@code RecoveryPeriodInDays}, 1 to 35),
 * and since when it has been on (the earliest time a restore can reach).
 */
public record PitrSettings(boolean enabled, int recoveryPeriodDays, long enabledMillis) {}
