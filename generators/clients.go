package generators

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
	"github.com/kafkachaos/kafkachaos/model"
)

// Clients under test: the Kafka client library a role's workers run.
// Scenario.Client names it for every role, Scenario.Clients per role; the
// final reads, which only observe, always use librdkafka.
const (
	ClientLibrdkafka = "librdkafka" // confluent-kafka-go; the default
	ClientJava       = "java"       // kafka-clients from Maven Central, in a JVM per client
	ClientFranzGo    = "franz-go"   // twmb/franz-go's kgo, in process, at the module's version in go.mod
)

// ClientNames are the clients a scenario may name; each runs every role.
func ClientNames() []string { return []string{ClientLibrdkafka, ClientJava, ClientFranzGo} }

// roles are the roles a scenario's clients map may name, with their
// worker counts in w.
func roles(w Workload) map[string]int {
	return map[string]int{RoleProducer: w.Producers, RoleConsumer: w.Consumers, RoleCopier: w.Copiers, RoleTxnQueue: w.TxnQueues}
}

// ClientOf is the client role's workers run: Clients[role], else Client,
// else librdkafka.
func (s Scenario) ClientOf(role string) string {
	if c := s.Clients[role]; c != "" {
		return c
	}
	if s.Client != "" {
		return s.Client
	}
	return ClientLibrdkafka
}

// JavaVersion is the kafka-clients release the java client runs:
// ClientVersion, else the project's pinned Kafka release.
func (s Scenario) JavaVersion() string {
	if s.ClientVersion != "" {
		return s.ClientVersion
	}
	return kafkadist.DefaultVersion
}

// UseClient makes client (at version, for a client with versions) the
// client under test of s, and names librdkafka for each role of s's
// workload that client cannot play as s asks (the consumers: see
// playsConsumers; the copiers: see playsCopiers), so the scenario says
// which client ran what. An unknown client is left for Validate to refuse.
func UseClient(s *Scenario, client, version string) {
	s.Client, s.ClientVersion, s.Clients = client, version, nil
	if client == ClientJava && version == "" {
		s.ClientVersion = kafkadist.DefaultVersion
	}
	if !slices.Contains(ClientNames(), client) || client == ClientLibrdkafka {
		return
	}
	for role, n := range roles(s.Workload) {
		unplayable := (role == RoleConsumer && !playsConsumers(*s)) || (role == RoleCopier && !playsCopiers(*s))
		if n > 0 && unplayable {
			if s.Clients == nil {
				s.Clients = map[string]string{}
			}
			s.Clients[role] = ClientLibrdkafka
		}
	}
}

// playsConsumers reports whether the consumers s names can play s's: the
// java consumer's checks pass, and no fault that librdkafka consumers
// could take needs what the named client lacks (a kind's available rule,
// e.g. stall-consumer's hook).
func playsConsumers(s Scenario) bool {
	if s.ClientOf(RoleConsumer) == ClientJava && len(s.validateJavaConsumer()) > 0 {
		return false
	}
	with := s
	with.Clients = maps.Clone(s.Clients)
	if with.Clients == nil {
		with.Clients = map[string]string{}
	}
	with.Clients[RoleConsumer] = ClientLibrdkafka
	for _, f := range s.Nemesis {
		if a := kindOf(f.Kind).available; a != nil && a(s, f, "") != nil && a(with, f, "") == nil {
			return false
		}
	}
	return true
}

// playsCopiers reports whether the copiers s names can play s's: the java
// and franz-go copiers' checks pass.
func playsCopiers(s Scenario) bool {
	if s.ClientOf(RoleCopier) == ClientJava && len(s.validateJavaCopier()) > 0 {
		return false
	}
	return len(s.validateFranzCopiers()) == 0
}

var clientVersionPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$`)

// validateClients checks the client, client-version and clients fields:
// known clients and roles, a version only for a client that has versions.
func (s *Scenario) validateClients() []error {
	var errs []error
	known := func(field, name string) {
		if !slices.Contains(ClientNames(), name) {
			errs = append(errs, bad(field, "unknown client %q, want one of %v", name, ClientNames()))
		}
	}
	if s.Client != "" {
		known("client", s.Client)
	}
	counts := roles(s.Workload)
	for _, role := range slices.Sorted(maps.Keys(s.Clients)) {
		if _, ok := counts[role]; !ok {
			errs = append(errs, bad("clients."+role, "unknown role, want one of producer, consumer, copier, txn-queue"))
			continue
		}
		known("clients."+role, s.Clients[role])
	}
	java := s.Client == ClientJava
	for role := range counts {
		java = java || s.ClientOf(role) == ClientJava
	}
	switch {
	case s.ClientVersion != "" && s.Client == ClientFranzGo:
		errs = append(errs, bad("client-version", "%q: the franz-go client is the version go.mod names, built in; it takes no version", s.ClientVersion))
	case s.ClientVersion != "" && !java:
		errs = append(errs, bad("client-version", "%q: only the java client has versions, and no role runs it", s.ClientVersion))
	case s.ClientVersion != "" && !clientVersionPattern.MatchString(s.ClientVersion):
		errs = append(errs, bad("client-version", "%q, want a kafka-clients release like %s", s.ClientVersion, kafkadist.DefaultVersion))
	}
	if java {
		errs = append(errs, s.validateJava()...)
	}
	return append(append(errs, s.validateFranzConsumer()...), s.validateFranzCopiers()...)
}

// validateFranzCopiers checks what the franz-go copier does not play: it
// is kgo's group transact session, which subscribes and copies
// transactionally.
func (s *Scenario) validateFranzCopiers() []error {
	w := s.Workload
	if s.ClientOf(RoleCopier) != ClientFranzGo || w.Copiers == 0 {
		return nil
	}
	var errs []error
	if w.CopyMode() != CopyTransactional {
		errs = append(errs, bad("workload.copier-mode", "%s: the franz-go copier copies transactionally only; name librdkafka in clients.copier", w.CopyMode()))
	}
	if w.CopierAssign {
		errs = append(errs, bad("workload.copier-assign", "the franz-go copier joins its group by subscribing; name librdkafka in clients.copier"))
	}
	return errs
}

// franzMinAutoCommit is the shortest automatic-commit interval kgo takes.
const franzMinAutoCommit = 100 * time.Millisecond

// validateFranzConsumer checks what kgo refuses at start that librdkafka
// takes: an automatic-commit interval under 100 ms.
func (s *Scenario) validateFranzConsumer() []error {
	c := s.Consumer
	if s.ClientOf(RoleConsumer) != ClientFranzGo || s.Workload.Consumers == 0 || c.CommitStrategy != model.CommitAuto {
		return nil
	}
	if iv := c.AutoCommitInterval.D(); iv > 0 && iv < franzMinAutoCommit {
		return []error{bad("consumer.auto.commit.interval", "%s: the franz-go consumer takes %s at least", iv, franzMinAutoCommit)}
	}
	return nil
}

// validateJava checks what the Java producer refuses at start that
// librdkafka takes.
func (s *Scenario) validateJava() []error {
	var errs []error
	if s.Workload.ClientProcesses {
		errs = append(errs, bad("workload.client-processes", "the java client's JVM is a process of its own already: a crash SIGKILLs it and pause-client SIGSTOPs it without client-processes; worker processes around it are not built"))
	}
	p := s.Producer
	request := p.SocketTimeout
	if request <= 0 {
		request = p.RequestTimeout
	}
	if p.DeliveryTimeout > 0 && p.DeliveryTimeout < p.Linger+request {
		errs = append(errs, bad("producer.delivery.timeout", "%s: the java client wants at least linger + request timeout (%s + %s)",
			p.DeliveryTimeout, p.Linger, request))
	}
	if s.ClientOf(RoleConsumer) == ClientJava && s.Workload.Consumers > 0 {
		errs = append(errs, s.validateJavaConsumer()...)
	}
	if s.ClientOf(RoleCopier) == ClientJava && s.Workload.Copiers > 0 {
		errs = append(errs, s.validateJavaCopier()...)
	}
	return errs
}

// validateJavaCopier checks what the java copier cannot play yet: the
// at-least-once copy mode (it copies transactionally only).
func (s *Scenario) validateJavaCopier() []error {
	if s.Workload.CopyMode() == CopyAtLeastOnce {
		return []error{bad("workload.copier-mode", "%s: the java copier copies %s only; name librdkafka in clients.copier",
			CopyAtLeastOnce, CopyTransactional)}
	}
	return nil
}

// validateJavaConsumer checks what the java consumer cannot play yet: the
// transactional strategy, and KIP-848 before the Java client's release
// has it (4.0). The faults it cannot take say so themselves (stall-
// consumer's available rule).
func (s *Scenario) validateJavaConsumer() []error {
	var errs []error
	if s.Consumer.CommitStrategy == model.CommitTransactional {
		errs = append(errs, bad("consumer.commit-strategy", "transactional: the java consumer does not run it yet; name librdkafka in clients.consumer"))
	}
	if s.Consumer.Protocol() == GroupConsumer {
		if ok, err := KafkaAtLeast(s.JavaVersion(), "4.0"); err == nil && !ok {
			errs = append(errs, bad("consumer.group-protocol", "consumer (KIP-848): the java client has it from 4.0, and client-version is %s", s.JavaVersion()))
		}
	}
	return errs
}

// ParseClient reads a --client value, NAME or NAME@VERSION.
func ParseClient(v string) (name, version string, err error) {
	name, version, _ = strings.Cut(v, "@")
	if name == "" {
		return "", "", fmt.Errorf("--client %q: want NAME[@VERSION], NAME one of %v", v, ClientNames())
	}
	return name, version, nil
}
