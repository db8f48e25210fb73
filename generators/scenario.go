package generators

import (
	"github.com/kafkachaos/kafkachaos/model"
)

// Scenario is everything one run needs, as plain data: enough to replay it.
// JSON names are those of scenario.json.
type Scenario struct {
	Name     string            `json:"name"`
	Seed     int64             `json:"seed"`
	Cluster  Cluster           `json:"cluster"`
	Keys     Keys              `json:"keys"`
	Topic    model.TopicConfig `json:"topic"`
	Producer Producer          `json:"producer"`
	Consumer Consumer          `json:"consumer"`
	Workload Workload          `json:"workload"`
	Nemesis  []Fault           `json:"nemesis"`
	// Client is the Kafka client library under test (ClientLibrdkafka
	// when empty), ClientVersion its release where it has releases (the
	// java client's kafka-clients), and Clients names another client
	// for a role (producer, consumer, copier, txn-queue): see ClientOf.
	Client        string            `json:"client,omitempty"`
	ClientVersion string            `json:"client-version,omitempty"`
	Clients       map[string]string `json:"clients,omitempty"`
	TimeLimit     Duration          `json:"time-limit"`
	// Replay is the command that runs this scenario again; the runner
	// fills it in once it knows where scenario.json lives.
	Replay string `json:"replay,omitempty"`
}

// Cluster selects the cluster provider and shapes its brokers.
type Cluster struct {
	Provider      string            `json:"provider"` // "embedded", "local", "docker", "external"
	Brokers       int               `json:"brokers"`
	BrokerConfigs map[string]string `json:"broker-configs,omitempty"`
	// ReplicationProxies routes the brokers' replication through a proxy
	// per broker even when no fault acts on them (see LinkReplication): the
	// same cluster as a run with a toxic on them, without the toxic.
	ReplicationProxies bool `json:"replication-proxies,omitempty"`
	// DynamicQuorum formats the controllers as a dynamic KRaft quorum
	// (local provider, Kafka 3.9+), whose voters can change: what
	// remove-voter needs, and sets (see quorum_kinds.go).
	DynamicQuorum bool `json:"dynamic-quorum,omitempty"`
	// ClientProxies, LazyDisks and Clocks give the brokers the clients'
	// proxies, lazyfs data directories and movable clocks even when no
	// fault of the run uses them: the cluster a fault of the proxy, disk
	// or clock kinds would get, without the fault (see Equip).
	ClientProxies bool `json:"client-proxies,omitempty"`
	LazyDisks     bool `json:"lazy-disks,omitempty"`
	Clocks        bool `json:"clocks,omitempty"`
}

// Keys are the logical keys of the run, each one topic-partition. Keys
// 0..Count-1 live on Topic; a copier writes key k's output to key Count+k
// on OutputTopic. Map spells every key out, as the history's readers need.
type Keys struct {
	Count       int                       `json:"count"`
	Topic       string                    `json:"topic"`
	OutputTopic string                    `json:"output-topic,omitempty"`
	Map         map[string]TopicPartition `json:"map"`
}

// TopicPartition is where a key lives.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// Producer is the producers' configuration: the part that decides the
// guarantee (model's) and the timeouts that decide how faults look to them.
type Producer struct {
	model.ProducerConfig
	DeliveryTimeout Duration `json:"delivery.timeout,omitempty"`
	// RequestTimeout is librdkafka's request.timeout.ms: for a produce
	// request the ack timeout the broker enforces (a Java client's
	// request.timeout.ms is SocketTimeout here).
	RequestTimeout Duration `json:"request.timeout,omitempty"`
	// SocketTimeout is socket.timeout.ms: how long the client waits for
	// an answer before it gives the request up and retries it. A request
	// that reached the broker and whose answer is late by more than this
	// is written again by a retry (without idempotence: twice). 0 keeps
	// librdkafka's 60 s.
	SocketTimeout Duration `json:"socket.timeout,omitempty"`
	Linger        Duration `json:"linger,omitempty"`
}

// Consumer is the consumers' configuration.
type Consumer struct {
	model.ConsumerConfig
	SessionTimeout     Duration `json:"session.timeout,omitempty"`
	AutoCommitInterval Duration `json:"auto.commit.interval,omitempty"`
	// MaxPollInterval is max.poll.interval.ms: how long the application
	// may go without a poll before librdkafka leaves the group for it
	// (also the classic protocol's rebalance timeout). 0 keeps
	// librdkafka's 300 s. See KindStallConsumer.
	MaxPollInterval Duration `json:"max.poll.interval,omitempty"`
	// GroupProtocol is the group consumers' group.protocol: classic
	// ("" too) or consumer (KIP-848); see group_protocol.go.
	GroupProtocol string `json:"group-protocol,omitempty"`
}

// Consumer modes: join a group, or assign keys directly.
const (
	ModeGroup  = "group"
	ModeAssign = "assign"
)

// Workload is what the clients do.
type Workload struct {
	Producers int `json:"producers"`
	// Lanes is how many sends each producer has in flight at once.
	Lanes     int `json:"lanes"`
	Consumers int `json:"consumers"`
	Copiers   int `json:"copiers"`
	// Mode is ModeGroup (consumers subscribe in Group and commit as the
	// consumer's strategy says) or ModeAssign (consumers take keys
	// directly and commit nothing: only poll order is exercised).
	Mode  string `json:"mode"`
	Group string `json:"group,omitempty"`
	// Mix weighs the op kinds: each op of the run is a send, a poll or a
	// txn in these proportions (a kind with no worker gets none).
	Mix Mix `json:"mix"`
	// Rate is ops per second over all workers; 0 means as fast as they go.
	Rate float64 `json:"rate"`
	// MaxValues stops the producers after this many values in all; 0 means
	// no limit but time.
	MaxValues int `json:"max-values"`
	// PollBatch is the most records one poll op returns.
	PollBatch int `json:"poll-batch"`
	// TxnSize is how many input records a copier transaction carries,
	// and the most sends and polls a txn-queue transaction mixes.
	TxnSize int `json:"txn-size,omitempty"`
	// AbortRatio is the share of copier and txn-queue transactions
	// aborted on purpose.
	AbortRatio float64 `json:"abort-ratio,omitempty"`
	// TxnQueues is how many workers run Jepsen's queue workload with
	// transactions: each transaction mixes sends to the input keys with
	// read_committed polls of them, committed or aborted as a unit.
	TxnQueues int `json:"txn-queues,omitempty"`
	// IntraTxnDelay is the longest pause between two steps of a txn-queue
	// transaction, Jepsen's --intra-txn-delay: half of the transactions
	// (by the queue's seed) pause a random time up to it before each send
	// or poll after the first and before their commit or abort, so that
	// one transaction's requests stay open while time passes; the op
	// records the pauses. 0 means none.
	IntraTxnDelay Duration `json:"intra-txn-delay,omitempty"`
	// CopierMode is how copiers make their consume and produce hops one:
	// CopyTransactional ("" too) or CopyAtLeastOnce.
	CopierMode string `json:"copier-mode,omitempty"`
	// CopierAssign makes each copier assign every input key and resume
	// from its group's committed offsets instead of subscribing.
	CopierAssign bool `json:"copier-assign,omitempty"`
	// ClientProcesses runs every client in a worker process of its own:
	// a client crash is then a SIGKILL, and KindPauseClient can stop one.
	ClientProcesses bool `json:"client-processes,omitempty"`
}

// Copier modes.
const (
	// CopyTransactional is Kafka's exactly-once recipe: a transactional
	// producer, read_committed, and the consumed offsets committed in the
	// output transaction. Its consumer commit-strategy is transactional.
	CopyTransactional = "transactional"
	// CopyAtLeastOnce is the negative control: a plain producer, and the
	// copier's consumer committing its offsets after the sends, so a crash
	// between the two copies records again. Its consumer commit-strategy
	// is after-processing.
	CopyAtLeastOnce = "at-least-once"
)

// CopyMode is the copiers' mode, "" read as CopyTransactional.
func (w Workload) CopyMode() string {
	if w.CopierMode == "" {
		return CopyTransactional
	}
	return w.CopierMode
}

// Mix weighs sends, polls and txns.
type Mix struct {
	Send int `json:"send"`
	Poll int `json:"poll"`
	Txn  int `json:"txn"`
}

// Fault is one entry of the nemesis schedule: Kind is active from Start
// (since the run began) for Duration. Instantaneous kinds (crashes, leader
// shuffles) fire at Start and then every Params.Every within the window.
type Fault struct {
	Kind     string      `json:"kind"`
	Start    Duration    `json:"start"`
	Duration Duration    `json:"duration"`
	Params   FaultParams `json:"params,omitzero"`
}

// FaultParams tune a fault; each kind reads the fields it documents.
type FaultParams struct {
	// Probability that a matching request is hit (request faults); 0 = always.
	Probability float64 `json:"probability,omitempty"`
	// Delay for the delay fault; the latency fault's latency (or its
	// toxic's timeout or delay); how long delayed-requests holds each.
	Delay Duration `json:"delay,omitempty"`
	// Nodes for node faults; empty means one node chosen by the seed.
	Nodes []int32 `json:"nodes,omitempty"`
	// Point is where a consumer crash lands (CrashAfterCommit, ...).
	Point string `json:"point,omitempty"`
	// Every repeats an instantaneous fault within the window; 0 = once.
	Every Duration `json:"every,omitempty"`
	// Target picks the nodes of real-broker faults instead of Nodes: one,
	// leader (of key 0), controller, minority, majority or all.
	Target string `json:"target,omitempty"`
	// Percent of packets dropped (packet-loss).
	Percent int `json:"percent,omitempty"`
	// BitsPerSecond caps the links (slow-link, latency's bandwidth toxic).
	BitsPerSecond int64 `json:"bits-per-second,omitempty"`
	// Toxic is the latency fault's Toxiproxy toxic: latency (default),
	// timeout, reset_peer, slow_close, bandwidth or slicer.
	Toxic string `json:"toxic,omitempty"`
	// Jitter varies the latency toxic's delay by up to this much.
	Jitter Duration `json:"jitter,omitempty"`
	// Link is what a latency fault's toxic acts on: clients (default), the
	// clients' proxies, or replication, the brokers' (LinkReplication).
	Link string `json:"link,omitempty"`
	// Requests a delayed-requests fault holds: produce, commit,
	// txn-offset-commit, end-txn, add-partitions, add-offsets.
	Requests []string `json:"requests,omitempty"`
	// Client is the client.id prefix whose requests are held ("" any).
	Client string `json:"client,omitempty"`
	// Count bounds the requests held over the window; 0 holds every one.
	Count int `json:"count,omitempty"`
	// Offset moves a clock-skew fault's clocks ("+90s", "-30s"); 0 is
	// DefaultClockOffset. Mode is bump (default) or strobe.
	Offset Duration `json:"offset,omitempty"`
	Mode   string   `json:"mode,omitempty"`
	// Role is the kind of client pause-client stops: producer, consumer
	// or copier ("" any).
	Role string `json:"role,omitempty"`
	// Disk is how disk-fault fails the disk: eio (default), enospc or
	// read-eio.
	Disk string `json:"disk,omitempty"`
}

// End is when the fault's window closes.
func (f Fault) End() Duration { return f.Start + f.Duration }
