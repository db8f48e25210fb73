package realbroker

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestPropertiesIdentityWinsOverridesBeatDefaults(t *testing.T) {
	all := []Node{{ID: 1, Host: "10.0.0.1", Port: 9092, ControllerPort: 9093}, {ID: 2, Host: "10.0.0.2", Port: 9092, ControllerPort: 9093},
		{ID: 3, Host: "10.0.0.3", Port: 9092, ControllerPort: 9093}}
	props := Properties(all[1], all, "/data", map[string]string{
		"node.id": "9", "listeners": "PLAINTEXT://evil:1", "replica.lag.time.max.ms": "777", "x.y": "z"})
	want := map[string]string{
		"node.id":                    "2",
		"listeners":                  "PLAINTEXT://10.0.0.2:9092,CONTROLLER://10.0.0.2:9093",
		"advertised.listeners":       "PLAINTEXT://10.0.0.2:9092",
		"controller.quorum.voters":   "1@10.0.0.1:9093,2@10.0.0.2:9093,3@10.0.0.3:9093",
		"log.dirs":                   "/data",
		"replica.lag.time.max.ms":    "777",
		"x.y":                        "z",
		"default.replication.factor": "3",
		"auto.create.topics.enable":  "false",
	}
	for k, v := range want {
		if props[k] != v {
			t.Errorf("%s = %q, want %q", k, props[k], v)
		}
	}
}

// A proxied node gets a client listener of its own that advertises the
// proxy; the brokers and the admin client keep the direct one.
func TestPropertiesProxiedListener(t *testing.T) {
	self := Node{ID: 1, Host: "10.0.0.1", Port: 9092, ControllerPort: 9093, ProxyPort: 9094, ProxyAddr: "127.0.0.1:40001"}
	props := Properties(self, []Node{self}, "/data", nil)
	want := map[string]string{
		"listeners":                      "PLAINTEXT://10.0.0.1:9092,CONTROLLER://10.0.0.1:9093,CLIENT://10.0.0.1:9094",
		"advertised.listeners":           "PLAINTEXT://10.0.0.1:9092,CLIENT://127.0.0.1:40001",
		"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,CLIENT:PLAINTEXT",
		"inter.broker.listener.name":     "PLAINTEXT",
	}
	for k, v := range want {
		if props[k] != v {
			t.Errorf("%s = %q, want %q", k, props[k], v)
		}
	}
}

func TestBrokerDefaultsFitSmallClusters(t *testing.T) {
	for brokers, rf := range map[int]string{1: "1", 2: "2", 3: "3", 5: "3"} {
		d := BrokerDefaults(brokers)
		if d["offsets.topic.replication.factor"] != rf || d["default.replication.factor"] != rf {
			t.Errorf("%d brokers: replication factors %q/%q, want %q", brokers,
				d["offsets.topic.replication.factor"], d["default.replication.factor"], rf)
		}
		if isr := d["transaction.state.log.min.isr"]; brokers == 1 && isr != "1" || brokers >= 2 && isr != "2" {
			t.Errorf("%d brokers: transaction log min.isr %q", brokers, isr)
		}
	}
}

func TestRenderPropertiesSorted(t *testing.T) {
	got := RenderProperties("by test", map[string]string{"b": "2", "a": "1", "c.d": "x=y"})
	if want := "# by test\na=1\nb=2\nc.d=x=y\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNewClusterIDIs16RandomBytes(t *testing.T) {
	a, b := NewClusterID(), NewClusterID()
	if a == b {
		t.Errorf("two ids equal: %s", a)
	}
	raw, err := base64.RawURLEncoding.DecodeString(a)
	if err != nil || len(raw) != 16 || strings.ContainsAny(a, "=+/") {
		t.Errorf("id %q: %d bytes, %v", a, len(raw), err)
	}
}

// A cluster id starting with '-' cannot be passed to kafka-storage format
// (cluster/local's TestFormatRefusesDashClusterID shows it): no draw may
// start with one. 5000 draws of the plain encoding hit one with
// probability 1-(63/64)^5000, all but certainly.
func TestNewClusterIDNeverStartsWithDash(t *testing.T) {
	for range 5000 {
		if id := NewClusterID(); strings.HasPrefix(id, "-") {
			t.Fatalf("cluster id %q starts with '-'", id)
		}
	}
}
