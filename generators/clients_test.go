package generators

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
	"github.com/kafkachaos/kafkachaos/model"
)

// clientBase is a valid scenario with producers and consumers only.
func clientBase() Scenario {
	s := sample()
	s.Workload.Copiers, s.Workload.TxnQueues, s.Workload.ClientProcesses = 0, 0, false
	s.Workload.Producers, s.Workload.Consumers, s.Workload.Mix.Send = 2, 1, 1
	s.Producer.TransactionalID = ""
	s.Producer.DeliveryTimeout, s.Producer.RequestTimeout, s.Producer.SocketTimeout, s.Producer.Linger =
		Duration(20*time.Second), Duration(2*time.Second), 0, 0
	return s
}

// franzCopy is s as a transactional copy by franz-go copiers.
func franzCopy(s Scenario) Scenario {
	s = s.TransactionalCopy(2, 0.1, 100)
	s.Client, s.Producer.Acks, s.Producer.EnableIdempotence = ClientFranzGo, model.AcksAll, true
	return s
}

func TestValidateClients(t *testing.T) {
	checkValidations(t, clientBase, []validation{
		{"librdkafka by default", func(s *Scenario) {}, ""},
		{"java producers, librdkafka consumers", func(s *Scenario) {
			s.Client, s.Clients = ClientJava, map[string]string{RoleConsumer: ClientLibrdkafka}
		}, ""},
		{"java producers by role", func(s *Scenario) {
			s.Clients, s.ClientVersion = map[string]string{RoleProducer: ClientJava}, "3.9.1"
		}, ""},
		{"unknown client", func(s *Scenario) { s.Client = "kcat" }, `client: unknown client "kcat"`},
		{"franz-go producers", func(s *Scenario) {
			s.Client, s.Clients = ClientFranzGo, map[string]string{RoleConsumer: ClientLibrdkafka}
		}, ""},
		{"franz-go consumers", func(s *Scenario) { s.Client = ClientFranzGo }, ""},
		{"franz-go consumers, auto-commit every 50ms", func(s *Scenario) {
			*s = groupBase()
			s.Client, s.Consumer.CommitStrategy, s.Consumer.AutoCommitInterval = ClientFranzGo, model.CommitAuto, Duration(50*time.Millisecond)
		}, "consumer.auto.commit.interval: 50ms: the franz-go consumer takes 100ms at least"},
		{"franz-go copiers", func(s *Scenario) {
			*s = franzCopy(*s)
		}, ""},
		{"franz-go copiers at least once", func(s *Scenario) {
			s.Client, s.Workload.Copiers, s.Workload.TxnSize, s.Workload.CopierMode = ClientFranzGo, 1, 5, CopyAtLeastOnce
			s.Keys = SequentialKeys(s.Keys.Count, s.Keys.Topic, "out")
		}, "workload.copier-mode: at-least-once: the franz-go copier copies transactionally only"},
		{"franz-go copiers assigning", func(s *Scenario) {
			*s = franzCopy(*s)
			s.Workload.CopierAssign = true
		}, "workload.copier-assign: the franz-go copier joins its group by subscribing"},
		{"franz-go consumers stalled", func(s *Scenario) {
			*s = groupBase()
			s.Clients, s.Nemesis = map[string]string{RoleConsumer: ClientFranzGo}, []Fault{stallFault(*s)}
		}, "nemesis[0].kind: stall-consumer holds a consumer by librdkafka's stall hook, and the consumers run the franz-go client"},
		{"franz-go with a version", func(s *Scenario) {
			s.Client, s.ClientVersion, s.Clients = ClientFranzGo, "1.18.0", map[string]string{RoleConsumer: ClientLibrdkafka}
		}, `client-version: "1.18.0": the franz-go client is the version go.mod names`},
		{"unknown role", func(s *Scenario) { s.Clients = map[string]string{"reader": ClientJava} }, "clients.reader: unknown role"},
		{"java consumers", func(s *Scenario) { s.Client = ClientJava }, ""},
		{"java consumers, transactional", func(s *Scenario) {
			s.Clients, s.Consumer.CommitStrategy = map[string]string{RoleConsumer: ClientJava}, model.CommitTransactional
		}, "consumer.commit-strategy: transactional: the java consumer does not run it yet"},
		{"java consumers stalled", func(s *Scenario) {
			*s = groupBase()
			s.Clients, s.Nemesis = map[string]string{RoleConsumer: ClientJava}, []Fault{stallFault(*s)}
		}, "nemesis[0].kind: stall-consumer holds a consumer by librdkafka's stall hook, and the consumers run the java client"},
		{"java consumers, KIP-848 before 4.0", func(s *Scenario) {
			*s = groupBase()
			s.Clients, s.ClientVersion, s.Consumer.GroupProtocol = map[string]string{RoleConsumer: ClientJava}, "3.9.1", GroupConsumer
		}, "consumer.group-protocol: consumer (KIP-848): the java client has it from 4.0, and client-version is 3.9.1"},
		{"java consumers, KIP-848", func(s *Scenario) {
			*s = groupBase()
			s.Clients, s.Consumer.GroupProtocol = map[string]string{RoleConsumer: ClientJava}, GroupConsumer
		}, ""},
		{"java copier by role", func(s *Scenario) { s.Workload.Consumers = 0; s.Clients = map[string]string{RoleCopier: ClientJava} }, ""},
		{"java copier with copiers", func(s *Scenario) {
			s.Workload.Copiers, s.Workload.TxnSize, s.Keys = 1, 3, SequentialKeys(s.Keys.Count, s.Keys.Topic, "out")
			s.Producer.TransactionalID, s.Producer.Acks = "t", model.AcksAll
			s.Clients = map[string]string{RoleCopier: ClientJava}
		}, ""},
		{"java copier, at-least-once", func(s *Scenario) {
			s.Workload.Copiers, s.Workload.TxnSize, s.Keys = 1, 3, SequentialKeys(s.Keys.Count, s.Keys.Topic, "out")
			s.Workload.CopierMode, s.Consumer.CommitStrategy = CopyAtLeastOnce, model.CommitAfterProcessing
			s.Clients = map[string]string{RoleCopier: ClientJava}
		}, "workload.copier-mode: at-least-once: the java copier copies transactional only"},
		{"java copiers beside transactional librdkafka consumers", func(s *Scenario) {
			*s = groupBase()
			s.Workload.Copiers, s.Workload.TxnSize, s.Keys = 1, 3, SequentialKeys(s.Keys.Count, s.Keys.Topic, "out")
			s.Producer.TransactionalID, s.Producer.Acks, s.Consumer.CommitStrategy = "t", model.AcksAll, model.CommitTransactional
			s.Clients = map[string]string{RoleCopier: ClientJava, RoleProducer: ClientJava}
		}, ""},
		{"version without java", func(s *Scenario) { s.ClientVersion = "3.9.1" }, "client-version: \"3.9.1\": only the java client has versions"},
		{"bad version", func(s *Scenario) { s.Clients, s.ClientVersion = map[string]string{RoleProducer: ClientJava}, "3.9" },
			"client-version: \"3.9\", want a kafka-clients release"},
		{"java in worker processes", func(s *Scenario) {
			s.Clients, s.Workload.ClientProcesses = map[string]string{RoleProducer: ClientJava}, true
		}, "workload.client-processes: the java client's JVM is a process of its own"},
		{"java delivery timeout below linger + request timeout", func(s *Scenario) {
			s.Clients, s.Producer.DeliveryTimeout = map[string]string{RoleProducer: ClientJava}, Duration(time.Second)
		}, "producer.delivery.timeout: 1s: the java client wants at least linger + request timeout"},
	})
}

// groupBase is clientBase with group consumers, and time for a stall.
func groupBase() Scenario {
	s := clientBase()
	s.Workload.Mode, s.Workload.Group, s.TimeLimit = ModeGroup, "g", Duration(30*time.Second)
	return s
}

// stallFault is the stall-consumer fault --nemesis makes for s.
func stallFault(s Scenario) Fault {
	k, _ := LookupKind(KindStallConsumer)
	return k.Defaults(s.TimeLimit, FaultFlags{})
}

// UseClient names librdkafka for the roles the client does not run, or
// cannot play as the scenario asks, so the scenario it writes says which
// client ran what, and it validates.
func TestUseClientNamesEveryRole(t *testing.T) {
	s := clientBase()
	UseClient(&s, ClientJava, "")
	if s.ClientOf(RoleProducer) != ClientJava || s.ClientOf(RoleConsumer) != ClientJava || s.Clients != nil {
		t.Fatalf("java runs producers and consumers, got clients %v", s.Clients)
	}
	for name, change := range map[string]func(*Scenario){
		"transactional":  func(s *Scenario) { s.Consumer.CommitStrategy = model.CommitTransactional },
		"stall-consumer": func(s *Scenario) { s.Nemesis = []Fault{stallFault(*s)} },
	} {
		s := groupBase()
		change(&s)
		UseClient(&s, ClientJava, "")
		if s.ClientOf(RoleConsumer) != ClientLibrdkafka {
			t.Errorf("%s: consumers run %s, want librdkafka (the java consumer cannot play it)", name, s.ClientOf(RoleConsumer))
		}
	}
	s = groupBase()
	s.Nemesis = []Fault{stallFault(s)}
	UseClient(&s, ClientFranzGo, "")
	if s.ClientOf(RoleProducer) != ClientFranzGo || s.ClientOf(RoleConsumer) != ClientLibrdkafka {
		t.Errorf("franz-go under stall-consumer: producers %s, consumers %s; want franz-go and librdkafka (no stall hook)",
			s.ClientOf(RoleProducer), s.ClientOf(RoleConsumer))
	}
	s = groupBase()
	s.Consumer.CommitStrategy = model.CommitAuto
	UseClient(&s, ClientFranzGo, "")
	if got := CrashPoints(s); len(got) != 1 || got[0] != CrashAnywhere {
		t.Errorf("franz-go auto-commit consumers reach %v, want only anywhere (kgo commits a poll's records after the next poll)", got)
	}
	s = clientBase()
	UseClient(&s, ClientJava, "")
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Scenario
	if err := json.Unmarshal(b, &back); err != nil || back.ClientOf(RoleProducer) != ClientJava || back.JavaVersion() != kafkadist.DefaultVersion {
		t.Fatalf("scenario.json lost the clients: %v %+v", err, back.Clients)
	}
	UseClient(&s, ClientLibrdkafka, "")
	if s.Clients != nil || s.ClientVersion != "" {
		t.Fatalf("librdkafka kept %v %q", s.Clients, s.ClientVersion)
	}
}

// The java client runs txn queues: --client java names it for them, and a
// scenario asking for it validates.
func TestJavaRunsTxnQueues(t *testing.T) {
	s := clientBase()
	s.Producer.TransactionalID, s.Producer.Acks = "queue", model.AcksAll
	s.Workload.TxnQueues, s.Workload.TxnSize, s.Workload.Mix.Txn = 1, 3, 1
	UseClient(&s, ClientJava, "3.9.1")
	if got := s.ClientOf(RoleTxnQueue); got != ClientJava {
		t.Fatalf("txn queues run %s (clients %v), want java", got, s.Clients)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}

// The java client runs transactional copiers: --client java names it for
// them, and a scenario asking for it validates; at-least-once copiers,
// which it does not run, stay librdkafka.
func TestJavaAndFranzRunCopiers(t *testing.T) {
	for _, c := range []string{ClientJava, ClientFranzGo} {
		s := clientBase()
		s.Producer.TransactionalID, s.Producer.Acks, s.Producer.EnableIdempotence = "copy", model.AcksAll, true
		s.Workload.Copiers, s.Workload.TxnSize, s.Workload.Mix.Txn = 1, 3, 1
		s.Keys = SequentialKeys(s.Keys.Count, s.Keys.Topic, "out")
		UseClient(&s, c, "")
		if got := s.ClientOf(RoleCopier); got != c {
			t.Fatalf("copiers run %s (clients %v), want %s", got, s.Clients, c)
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		s.Workload.CopierMode, s.Consumer.CommitStrategy = CopyAtLeastOnce, model.CommitAfterProcessing
		UseClient(&s, c, "")
		if got := s.ClientOf(RoleCopier); got != ClientLibrdkafka {
			t.Fatalf("%s: at-least-once copiers run %s (clients %v), want librdkafka", c, got, s.Clients)
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParseClient(t *testing.T) {
	for in, want := range map[string][2]string{"java": {"java", ""}, "java@3.9.1": {"java", "3.9.1"}, "librdkafka": {"librdkafka", ""}} {
		n, v, err := ParseClient(in)
		if err != nil || n != want[0] || v != want[1] {
			t.Errorf("ParseClient(%q) = %q, %q, %v", in, n, v, err)
		}
	}
	if _, _, err := ParseClient("@3.9.1"); err == nil {
		t.Error("ParseClient(@3.9.1) took a version without a client")
	}
}
