package io.partita.server.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FaultRuleTest {
    @Test
    void aSpecReadsEverySetting() {
        FaultRule.Spec s = FaultRule.Spec.parse(
                "fault=latency,table=orders,operation=GetItem,rate=0.25,count=3," + "latency=150ms,seed=9");
        assertThat(s).isEqualTo(new FaultRule.Spec("orders", "GetItem", FaultRule.Kind.LATENCY, 0.25, 3, 150, 9L));
        assertThat(FaultRule.Spec.parse("fault=internal,table=*"))
                .isEqualTo(new FaultRule.Spec(null, null, FaultRule.Kind.INTERNAL, 1, -1, 0, null));
    }

    @Test
    void aBadSpecSaysWhatIsWrong() {
        assertThatThrownBy(() -> FaultRule.Spec.parse("table=orders")).hasMessageContaining("needs its kind");
        assertThatThrownBy(() -> FaultRule.Spec.parse("fault=slow")).hasMessageContaining("unknown fault 'slow'");
        assertThatThrownBy(() -> FaultRule.Spec.parse("fault=throttle,rate=2")).hasMessageContaining("0 to 1");
        assertThatThrownBy(() -> FaultRule.Spec.parse("fault=throttle,count=0")).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> FaultRule.Spec.parse("fault=latency")).hasMessageContaining("latency=");
        assertThatThrownBy(() -> FaultRule.Spec.parse("fault=throttle,latency=5"))
                .hasMessageContaining("latency fault only");
        assertThatThrownBy(() -> FaultRule.Spec.parse("fault=throttle,colour=red"))
                .hasMessageContaining("unknown setting 'colour'");
    }

    @Test
    void aRuleMatchesItsTableAndOperation() {
        FaultRule r = new FaultRule(1, FaultRule.Spec.parse("fault=throttle,table=orders,operation=PutItem"), 1);
        assertThat(r.matches("PutItem", List.of("orders"))).isTrue();
        assertThat(r.matches("PutItem", List.of("users", "orders"))).isTrue();
        assertThat(r.matches("GetItem", List.of("orders"))).isFalse();
        assertThat(r.matches("PutItem", List.of("users"))).isFalse();
        assertThat(r.matches("ListTables", List.of())).isFalse();
        FaultRule any = new FaultRule(2, FaultRule.Spec.parse("fault=throttle"), 1);
        assertThat(any.matches("ListTables", List.of())).isTrue();
    }

    @Test
    void aCountLimitsHowOftenItFires() {
        FaultRule r = new FaultRule(1, FaultRule.Spec.parse("fault=throttle,count=2"), 1);
        assertThat(List.of(r.fires(), r.fires(), r.fires(), r.fires())).containsExactly(true, true, false, false);
        assertThat(r.injected()).isEqualTo(2);
        assertThat(r.remaining()).isZero();
        assertThat(r.live()).isFalse();
    }

    @Test
    void theSameSeedFiresOnTheSameRequests() {
        List<Boolean> first = draws(new FaultRule(1, FaultRule.Spec.parse("fault=throttle,rate=0.3,seed=42"), 1));
        List<Boolean> again = draws(new FaultRule(7, FaultRule.Spec.parse("fault=throttle,rate=0.3,seed=42"), 5));
        List<Boolean> other = draws(new FaultRule(1, FaultRule.Spec.parse("fault=throttle,rate=0.3,seed=43"), 1));
        assertThat(again).isEqualTo(first);
        assertThat(other).isNotEqualTo(first);
        long hits = first.stream().filter(b -> b).count();
        assertThat(hits).isBetween(200L, 400L);
        // Without a seed of its own, a rule's draws follow the injector's seed and its id.
        assertThat(draws(new FaultRule(3, FaultRule.Spec.parse("fault=throttle,rate=0.3"), 11)))
                .isEqualTo(draws(new FaultRule(3, FaultRule.Spec.parse("fault=throttle,rate=0.3"), 11)));
        assertThat(Set.copyOf(draws(new FaultRule(1, FaultRule.Spec.parse("fault=throttle,rate=0"), 1))))
                .containsExactly(false);
    }

    private static List<Boolean> draws(FaultRule r) {
        List<Boolean> out = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            out.add(r.fires());
        }
        return out;
    }
}
