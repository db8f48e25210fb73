package sim

import (
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// Planted is a weak configuration with a violation planted in it: a
// retrying producer without idempotence (acks=1) under lost
// acknowledgements, whose retries write twice. Claimed exactly-once, its
// draws must be refuted; with the producer made idempotent they must hold.
func Planted(seed int64) generators.Scenario {
	s := generators.Baseline("sim-planted", "sim", 2*time.Second)
	s.Seed = seed
	s.Producer.EnableIdempotence, s.Producer.Acks = false, model.AcksLeader
	s.Workload.Consumers = 1
	s.Nemesis = []generators.Fault{{Kind: generators.KindLostAck, Start: generators.Duration(200 * time.Millisecond),
		Duration: generators.Duration(time.Second), Params: generators.FaultParams{Probability: 0.5}}}
	return s
}
