package local

import (
	"cmp"

	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
)

// KafkaVersion is the release Start runs: Options.KafkaVersion, else
// KAFKA_VERSION, else kafkadist.DefaultVersion (cluster.KafkaVersioner).
func (p *Provider) KafkaVersion() string { return cmp.Or(p.opts.KafkaVersion, kafkadist.Version()) }
