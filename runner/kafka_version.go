package runner

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
)

// OldKafka is a scenario field that needs a newer Kafka release than the
// provider runs: the run would fail half way, or prove nothing.
type OldKafka struct {
	Need     generators.KafkaNeed
	Have     string // the provider's release
	Provider string
}

func (e *OldKafka) Error() string {
	return fmt.Sprintf("%s needs Kafka %s+, and cluster provider %q runs Kafka %s: %s",
		e.Need.Field, e.Need.Min, e.Provider, e.Have, e.Need.Why)
}

// kafkaFits checks s's needs of the Kafka release (generators.KafkaNeeds)
// against prov's, when prov knows it before Start (cluster.KafkaVersioner);
// the first unmet one comes back as an *OldKafka.
func kafkaFits(prov cluster.Provider, s generators.Scenario) error {
	v, ok := prov.(cluster.KafkaVersioner)
	if !ok {
		return nil
	}
	have := v.KafkaVersion()
	for _, need := range generators.KafkaNeeds(s) {
		fits, err := generators.KafkaAtLeast(have, need.Min)
		if err != nil {
			return fmt.Errorf("cluster provider %q: %w", prov.Name(), err)
		}
		if !fits {
			return &OldKafka{Need: need, Have: have, Provider: prov.Name()}
		}
	}
	return nil
}
