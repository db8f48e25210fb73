package realbroker

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
)

// AddBrokerVerified and RemoveAddedVerified say what a provider's
// add-broker hooks check before they return nil.
const (
	AddBrokerVerified   = "the broker listens; the metadata lists it and it answers; DescribeCluster v2 with fenced brokers lists it unfenced"
	RemoveAddedVerified = "a clean stop (SIGTERM, the JVM exited); then " + UnregisterVerified + "; its namespace and storage removed"
)

// BrokerOnly is the configuration of a broker joining a running cluster:
// peer's (a node of the cluster, so the defaults, the overrides and the
// controller quorum are the cluster's own) with self's identity and
// listeners, and the broker role alone. A broker-only node may not listen
// on a controller listener; it still names it (controller.listener.names
// and the protocol map) to reach the quorum. It refuses a peer whose
// clients or replication go through proxies, which self's config has no
// listener for.
func BrokerOnly(peer map[string]string, self Node, dataDir string) (map[string]string, error) {
	if listens(peer["listeners"], ProxiedListener) || listens(peer["listeners"], ReplicationListener) {
		return nil, fmt.Errorf("the cluster's clients or replication go through proxies (listeners %s): an added broker would have no such listener",
			peer["listeners"])
	}
	props := maps.Clone(peer)
	maps.Copy(props, map[string]string{
		"process.roles":              "broker",
		"node.id":                    strconv.Itoa(int(self.ID)),
		"listeners":                  fmt.Sprintf("PLAINTEXT://%s:%d", self.Host, self.Port),
		"advertised.listeners":       fmt.Sprintf("PLAINTEXT://%s:%d", self.Host, self.Port),
		"inter.broker.listener.name": "PLAINTEXT",
		"log.dirs":                   dataDir,
	})
	return props, nil
}

// listens reports whether a listeners value has a listener named name.
func listens(listeners, name string) bool {
	for l := range strings.SplitSeq(listeners, ",") {
		if strings.HasPrefix(strings.TrimSpace(l), name+"://") {
			return true
		}
	}
	return false
}

// ParseProperties reads a Java properties file as RenderProperties and
// Kafka's storage tool write them: key=value lines, # and ! comments,
// blank lines. A line without '=' is an error naming it.
func ParseProperties(text string) (map[string]string, error) {
	props := map[string]string{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not key=value", i+1, line)
		}
		props[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return props, nil
}

// AwaitJoined waits until new broker id, listening at addr, has joined:
// it listens, the metadata lists it and it answers (as a restarted broker
// must, within registerTimeout), and DescribeCluster lists it unfenced.
// exited describes how its process ended ("" while it runs) and ends the
// wait at once, with tail, the end of its log.
func (c *Cluster) AwaitJoined(ctx context.Context, id int32, addr string, exited func() string, tail func() string) error {
	if err := c.started(); err != nil {
		return err
	}
	died := func() error {
		if why := exited(); why != "" {
			return fmt.Errorf("new broker %d %s; log tail:\n%s", id, why, tail())
		}
		return nil
	}
	if err := WaitListening(ctx, addr, restartListenTimeout, died); err != nil {
		return fmt.Errorf("%s: new broker %d: %w", c.prefix, id, tailed(err, tail))
	}
	if err := c.admin.WaitRegistered(ctx, id, registerTimeout, died); err != nil {
		return fmt.Errorf("%s: new broker %d: %w", c.prefix, id, err)
	}
	unfenced := func(listed, fenced bool) bool { return listed && !fenced }
	return c.wrap(c.waitRegistration(ctx, id, VerifyTimeout, "listed unfenced", unfenced))
}
