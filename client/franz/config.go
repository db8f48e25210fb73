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

// ConsumerOptions are the kgo options of a consumer of cfg talking to
// bootstrap, before its keys (assigned or subscribed) and hooks: the
// group, its timings and protocol, the isolation level, and automatic
// commits only for the auto strategy. A group member blocks rebalances
// while the worker holds a poll's records (kgo.BlockRebalanceOnPoll), so
// that no record is processed or committed by a member that no longer
// owns its partition.
func ConsumerOptions(cfg client.ConsumerConfig, bootstrap string) ([]kgo.Opt, error) {
	if err := refuseConsumer(cfg); err != nil {
		return nil, err
	}
	opts := []kgo.Opt{kgo.SeedBrokers(strings.Split(bootstrap, ",")...), kgo.DisableClientMetrics(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}
	if cfg.ReadCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	if cfg.Group == "" {
		return opts, nil
	}
	opts = append(opts, kgo.ConsumerGroup(cfg.Group), kgo.BlockRebalanceOnPoll())
	if cfg.GroupProtocol == client.GroupConsumer {
		opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()))
	} else if cfg.SessionTimeout > 0 {
		opts = append(opts, kgo.SessionTimeout(cfg.SessionTimeout), kgo.HeartbeatInterval(cfg.SessionTimeout/3))
	}
	if cfg.MaxPollInterval > 0 {
		opts = append(opts, kgo.RebalanceTimeout(cfg.MaxPollInterval))
	}
	if cfg.Commit != client.CommitAuto {
		return append(opts, kgo.DisableAutoCommit()), nil
	}
	if cfg.AutoCommitEach > 0 {
		opts = append(opts, kgo.AutoCommitInterval(cfg.AutoCommitEach))
	}
	return opts, nil
}

// refuseConsumer rejects what the franz-go consumer cannot honour:
// librdkafka keys, a commit strategy without a group or one it does not
// play (transactional: the copier's), an unknown group protocol.
func refuseConsumer(cfg client.ConsumerConfig) error {
	switch {
	case len(cfg.Extra) > 0:
		return fmt.Errorf("franz consumer: librdkafka settings %v have no franz-go meaning", slices.Sorted(maps.Keys(cfg.Extra)))
	case cfg.Group == "" && cfg.Commit != "" && cfg.Commit != client.CommitNone:
		return fmt.Errorf("franz consumer: commit %q needs a group", cfg.Commit)
	}
	switch cfg.Commit {
	case "", client.CommitNone, client.CommitAuto, client.CommitBeforeProcessing, client.CommitAfterProcessing:
	default:
		return fmt.Errorf("franz consumer: commit = %q, want none, auto, before-processing or after-processing", cfg.Commit)
	}
	switch cfg.GroupProtocol {
	case "", client.GroupClassic, client.GroupConsumer:
		return nil
	}
	return fmt.Errorf("franz consumer: group protocol %q, want classic or consumer", cfg.GroupProtocol)
}
