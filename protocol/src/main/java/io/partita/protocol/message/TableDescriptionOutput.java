package io.partita.protocol.message;

/** The output of CreateTable, UpdateTable and DeleteTable: {@code {"TableDescription": …}}. */
public record TableDescriptionOutput(TableDescription tableDescription) {}
