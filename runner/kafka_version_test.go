package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/generators"
)

// Below Kafka 4.0 the local and docker providers refuse, before they
// start, remove-broker, add-broker and the consumer group protocol, naming
// the field and both versions; from 4.0 on they take them. Docker lacks
// the two kinds' capabilities, which Injectable names first, so its
// versions are asked directly. The embedded cluster runs no Kafka release
// and is not asked.
func TestOldKafkaRefusedBeforeStart(t *testing.T) {
	groupConsumer := func(s generators.Scenario) generators.Scenario {
		s.Consumer.GroupProtocol = generators.GroupConsumer
		return s
	}
	cases := []struct {
		name, field string
		scenario    func(generators.Scenario) generators.Scenario
	}{
		{"remove-broker", "nemesis[0].kind", func(s generators.Scenario) generators.Scenario { return withFault(s, generators.KindRemoveBroker) }},
		{"add-broker", "nemesis[0].kind", func(s generators.Scenario) generators.Scenario { return withFault(s, generators.KindAddBroker) }},
		{"group-protocol", "consumer.group-protocol", groupConsumer},
	}
	for _, version := range []string{"3.9.1", "4.0.0"} {
		t.Setenv("KAFKA_VERSION", version)
		for _, provider := range []string{"local", "docker"} {
			prov, err := DefaultProviders().New(provider)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				s := smallScenario()
				s.Cluster.Provider = provider
				check := Injectable
				if provider == "docker" {
					check = kafkaFits
				}
				err := check(prov, c.scenario(s))
				var old *OldKafka
				switch {
				case version == "4.0.0" && err != nil:
					t.Errorf("%s on %s %s: %v, want accepted", c.name, provider, version, err)
				case version == "3.9.1" && (!errors.As(err, &old) || old.Need.Field != c.field ||
					!strings.Contains(err.Error(), c.field+" needs Kafka 4.0+, and cluster provider \""+provider+"\" runs Kafka 3.9.1")):
					t.Errorf("%s on %s %s: %v, want refused naming %s and both versions", c.name, provider, version, err, c.field)
				}
			}
		}
	}
	prov, err := DefaultProviders().New("embedded")
	if err != nil {
		t.Fatal(err)
	}
	if err := kafkaFits(prov, groupConsumer(smallScenario())); err != nil {
		t.Errorf("embedded: %v, want no version asked", err)
	}
}
