package franz

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/client"
)

// Options are the kgo options of a producer of cfg talking to bootstrap
// (comma-separated host:port). Zero fields keep kgo's defaults, except
// linger: 0 means none, as for the other clients, not kgo's 10ms.
func Options(cfg client.ProducerConfig, bootstrap string) ([]kgo.Opt, error) {
	if err := refuse(cfg); err != nil {
		return nil, err
	}
	opts := []kgo.Opt{kgo.SeedBrokers(strings.Split(bootstrap, ",")...),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DisableClientMetrics()}
	acks, err := requiredAcks(cfg.Acks)
	if err != nil {
		return nil, err
	}
	opts = append(opts, kgo.RequiredAcks(acks))
	if !cfg.Idempotence {
		opts = append(opts, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(max(1, cfg.MaxInFlight)))
	}
	if cfg.Retries != nil {
		opts = append(opts, kgo.RecordRetries(*cfg.Retries))
	}
	if cfg.DeliveryTimeout > 0 {
		opts = append(opts, kgo.RecordDeliveryTimeout(cfg.DeliveryTimeout))
	}
	if cfg.RequestTimeout > 0 {
		opts = append(opts, kgo.ProduceRequestTimeout(cfg.RequestTimeout))
	}
	return append(opts, kgo.ProducerLinger(cfg.Linger)), nil
}

// refuse rejects what the franz-go producer cannot honour: a
// transactional id (the copier's, which franz-go does not run), librdkafka
// keys, retries below zero, and idempotence without acks=all (kgo refuses
// it; librdkafka would raise acks silently).
func refuse(cfg client.ProducerConfig) error {
	switch {
	case cfg.TransactionalID != "":
		return errors.New("franz producer: transactional producers are not built")
	case len(cfg.Extra) > 0:
		return fmt.Errorf("franz producer: librdkafka settings %v have no franz-go meaning", slices.Sorted(maps.Keys(cfg.Extra)))
	case cfg.Retries != nil && *cfg.Retries < 0:
		return fmt.Errorf("franz producer: retries = %d, want >= 0", *cfg.Retries)
	case cfg.Idempotence && cfg.Acks != "" && cfg.Acks != "all" && cfg.Acks != "-1":
		return fmt.Errorf("franz producer: acks = %s with idempotence: franz-go requires acks=all for idempotence", cfg.Acks)
	}
	return nil
}

// requiredAcks maps the acks setting; "" keeps kgo's default, all.
func requiredAcks(acks string) (kgo.Acks, error) {
	switch acks {
	case "0":
		return kgo.NoAck(), nil
	case "1":
		return kgo.LeaderAck(), nil
	case "", "all", "-1":
		return kgo.AllISRAcks(), nil
	}
	return kgo.Acks{}, fmt.Errorf("franz producer: acks = %q, want 0, 1 or all", acks)
}
