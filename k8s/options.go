package k8s

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Options shape the rendered objects. The zero value of a field takes the
// default Defaults gives it.
type Options struct {
	// Namespace holds every object, the Kafka cluster's pods included.
	Namespace string
	// Bootstrap is the Kafka cluster's bootstrap service, SERVICE:PORT.
	Bootstrap string
	// Brokers selects the broker pods by label. Empty: the Strimzi
	// labels of the cluster Bootstrap names (BrokerLabels).
	Brokers map[string]string
	// Shards > 0 renders an Indexed Job of that many `kafkachaos explore`
	// shards instead of one `kafkachaos run` of the scenario.
	Shards int
	// Image is the harness's container image.
	Image string
	// DataPath is where a broker's data volume is mounted in its kafka
	// container (the disk faults' volume).
	DataPath string
}

// Defaults: Strimzi's quick start (cluster my-cluster in namespace kafka,
// its plain listener), and a node pool's first JBOD volume.
const (
	DefaultNamespace = "kafka"
	DefaultBootstrap = "my-cluster-kafka-bootstrap:9092"
	DefaultImage     = "kafkachaos:latest"
	DefaultDataPath  = "/var/lib/kafka/data-0"
)

// strimziBootstrap is the suffix Strimzi gives a cluster's bootstrap
// service (NAME-kafka-bootstrap).
const strimziBootstrap = "-kafka-bootstrap"

// Strimzi's pod labels.
const (
	LabelCluster    = "strimzi.io/cluster"
	LabelKind       = "strimzi.io/kind"
	LabelBroker     = "strimzi.io/broker-role"
	LabelController = "strimzi.io/controller-role"
)

// withDefaults is o with every empty field given its default, and its
// broker labels derived from the bootstrap service when none are given.
func (o Options) withDefaults() (Options, error) {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.Bootstrap == "" {
		o.Bootstrap = DefaultBootstrap
	}
	if o.Image == "" {
		o.Image = DefaultImage
	}
	if o.DataPath == "" {
		o.DataPath = DefaultDataPath
	}
	if err := o.check(); err != nil {
		return o, err
	}
	if len(o.Brokers) == 0 {
		labels, err := BrokerLabels(o.Bootstrap)
		if err != nil {
			return o, err
		}
		o.Brokers = labels
	}
	return o, nil
}

// check refuses options no cluster could have.
func (o Options) check() error {
	if _, port, err := net.SplitHostPort(o.Bootstrap); err != nil || port == "" {
		return fmt.Errorf("bootstrap %q: want SERVICE:PORT", o.Bootstrap)
	}
	if o.Shards < 0 {
		return fmt.Errorf("shards %d: want 0 (one run) or more", o.Shards)
	}
	if !strings.HasPrefix(o.DataPath, "/") {
		return fmt.Errorf("data path %q: want an absolute path", o.DataPath)
	}
	return nil
}

// BrokerLabels are the Strimzi labels of the broker pods of the cluster
// whose bootstrap service is bootstrap (NAME-kafka-bootstrap[.NS...]:PORT).
func BrokerLabels(bootstrap string) (map[string]string, error) {
	host, _, err := net.SplitHostPort(bootstrap)
	if err != nil {
		return nil, fmt.Errorf("bootstrap %q: want SERVICE:PORT", bootstrap)
	}
	service, _, _ := strings.Cut(host, ".")
	name, ok := strings.CutSuffix(service, strimziBootstrap)
	if !ok || name == "" {
		return nil, fmt.Errorf("bootstrap %q: not a Strimzi bootstrap service (NAME%s), whose name gives the broker pods' labels", bootstrap, strimziBootstrap)
	}
	return map[string]string{LabelCluster: name, LabelKind: "Kafka", LabelBroker: "true"}, nil
}

// ParseLabels reads label=value[,label=value...].
func ParseLabels(text string) (map[string]string, error) {
	out := map[string]string{}
	for i, pair := range strings.Split(text, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("label %d %q: want label=value", i+1, pair)
		}
		out[k] = v
	}
	return out, nil
}

// controllerLabels select the controller pods: the broker labels with the
// broker role swapped for the controller role.
func controllerLabels(brokers map[string]string) map[string]string {
	out := map[string]string{LabelController: "true"}
	for k, v := range brokers {
		if k != LabelBroker {
			out[k] = v
		}
	}
	return out
}

// itoa spells counts as Chaos Mesh's string fields want them.
func itoa(n int) string { return strconv.Itoa(n) }
