package io.partita.protocol.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.model.AttributeValue;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UpdateApplierTest {
    private static final String BEFORE = "{'pk':{'S':'k'},'n':{'N':'10'},'s':{'S':'str'},'ss':{'SS':['a','b']},"
            + "'ns':{'NS':['1','2']},'l':{'L':[{'N':'0'},{'N':'1'},{'N':'2'},{'N':'3'}]},"
            + "'m':{'M':{'x':{'N':'1'},'qq':{'M':{}}}}}";
    private static final String VALUES = "{':one':{'N':'1'},':s':{'S':'new'},':l':{'L':[{'S':'z'}]},"
            + "':ssc':{'SS':['c']},':ssab':{'SS':['a','b']},':ssa':{'SS':['a']},':nsx':{'NS':['3']},"
            + "':big':{'N':'9.9999999999999999999999999999999999999E+125'},':m':{'M':{}}}";

    private static Map<String, AttributeValue> apply(String expression, String before) {
        ExpressionResolver r = Fixtures.resolver(null, VALUES);
        var u = r.resolve(ExpressionParser.parseUpdate(expression));
        return UpdateApplier.apply(u, Fixtures.item(before));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "SET n = n + :one | n | {'N':'11'}",
                "SET n = :one - n | n | {'N':'-9'}",
                "SET q = if_not_exists(q, :one) | q | {'N':'1'}",
                "SET n = if_not_exists(n, :one) | n | {'N':'10'}",
                "SET l = list_append(l, :l) | l | {'L':[{'N':'0'},{'N':'1'},{'N':'2'},{'N':'3'},{'S':'z'}]}",
                "SET l = list_append(:l, l) | l | {'L':[{'S':'z'},{'N':'0'},{'N':'1'},{'N':'2'},{'N':'3'}]}",
                "SET l[1] = :s | l | {'L':[{'N':'0'},{'S':'new'},{'N':'2'},{'N':'3'}]}",
                "SET l[10] = :s | l | {'L':[{'N':'0'},{'N':'1'},{'N':'2'},{'N':'3'},{'S':'new'}]}",
                "SET m.qq.y = :one | m | {'M':{'x':{'N':'1'},'qq':{'M':{'y':{'N':'1'}}}}}",
                "REMOVE l[0], l[2] | l | {'L':[{'N':'1'},{'N':'3'}]}",
                "REMOVE l[9] | l | {'L':[{'N':'0'},{'N':'1'},{'N':'2'},{'N':'3'}]}",
                "REMOVE m.x | m | {'M':{'qq':{'M':{}}}}",
                "ADD n :one | n | {'N':'11'}",
                "ADD fresh :one | fresh | {'N':'1'}",
                "ADD ss :ssc | ss | {'SS':['a','b','c']}",
                "DELETE ss :ssa | ss | {'SS':['b']}",
                "SET s = n, n = s | n | {'S':'str'}",
            })
    void appliesAsDynamoDbDoes(String expression, String attribute, String expectedJson) {
        Map<String, AttributeValue> after = apply(expression, BEFORE);
        assertThat(after.get(attribute))
                .isEqualTo(Fixtures.item("{'x':" + expectedJson + "}").get("x"));
    }

    @org.junit.jupiter.api.Test
    void removingEverythingFromASetRemovesTheAttribute() {
        assertThat(apply("DELETE ss :ssab", BEFORE)).doesNotContainKey("ss");
        assertThat(apply("REMOVE s, nothing", BEFORE)).doesNotContainKeys("s", "nothing");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "SET n = nope + :one | The provided expression refers to an attribute that does not exist in the item",
                "SET n = s + :one | An operand in the update expression has an incorrect data type",
                "ADD s :one | An operand in the update expression has an incorrect data type",
                "DELETE ns :ssa | An operand in the update expression has an incorrect data type",
                "SET l = list_append(n, :l) | An operand in the update expression has an incorrect data type",
                "SET nope.x = :one | The document path provided in the update expression is invalid for update",
                "SET s.x = :one | The document path provided in the update expression is invalid for update",
                "SET n = :big + :big | Number overflow. Attempting to store a number with magnitude larger than supported range",
                // A result needing more than 38 digits is an overflow for DynamoDB, not a 39-digit literal's error.
                "SET n = n + :big | Number overflow. Attempting to store a number with magnitude larger than supported"
                        + " range",
            })
    void dataDependentErrors(String expression, String message) {
        assertThatThrownBy(() -> apply(expression, BEFORE))
                .isInstanceOf(ApiException.class)
                .hasMessage(message);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "SET a = :one, a.b = :one | Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]",
                "SET a = :one REMOVE a | Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]",
                "SET a.b = :one, a[1] = :one | Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [1]]",
                "ADD a :s | Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING",
                "DELETE a :one | Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER",
                "SET a = list_append(a, :m) | Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: M",
                "SET a = a + :s | Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S",
                "SET a = if_not_exists(:one, a) | Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists",
            })
    void staticErrors(String expression, String message) {
        assertThatThrownBy(() -> apply(expression, BEFORE))
                .isInstanceOf(ApiException.class)
                .hasMessage(message);
    }

    @org.junit.jupiter.api.Test
    void neverChangesItsInput() {
        Map<String, AttributeValue> before = Fixtures.item(BEFORE);
        ExpressionResolver r = Fixtures.resolver(null, VALUES);
        var u = r.resolve(ExpressionParser.parseUpdate("SET m.qq.y = :one REMOVE l[0] ADD ss :ssc"));
        UpdateApplier.apply(u, before);
        assertThat(before).isEqualTo(Fixtures.item(BEFORE));
    }
}
