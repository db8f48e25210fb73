package java

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
)

// Properties are the Java producer's configs (key=value) for c: the same
// choices the librdkafka producer is given, in the Java client's terms.
//
//   - enable.idempotence is always set: the Java client's default (true
//     from 3.0, unless acks or retries conflict) must not decide it.
//   - request.timeout.ms is the Java client's one timeout of a request: the
//     broker's ack timeout and the client's wait for the answer. It is
//     c.SocketTimeout when set (librdkafka's wait for an answer), else
//     c.RequestTimeout.
//   - max.block.ms, how long send() may wait for metadata or buffer space,
//     is the delivery timeout when set: send() must not outlast it.
//   - Extra is passed verbatim, after the fields.
func Properties(c client.ProducerConfig, bootstrap string) ([]string, error) {
	if c.TransactionalID != "" {
		return nil, fmt.Errorf("java producer: transactions are not built yet (transactional.id %q)", c.TransactionalID)
	}
	m := map[string]string{
		"bootstrap.servers":  bootstrap,
		"linger.ms":          millis(c.Linger),
		"enable.idempotence": strconv.FormatBool(c.Idempotence),
	}
	switch c.Acks {
	case "":
	case "0", "1", "all", "-1":
		m["acks"] = c.Acks
	default:
		return nil, fmt.Errorf("java producer: acks = %q, want 0, 1 or all", c.Acks)
	}
	if c.Retries != nil {
		if *c.Retries < 0 {
			return nil, fmt.Errorf("java producer: retries = %d, want >= 0", *c.Retries)
		}
		m["retries"] = strconv.Itoa(*c.Retries)
	}
	if c.MaxInFlight > 0 {
		m["max.in.flight.requests.per.connection"] = strconv.Itoa(c.MaxInFlight)
	}
	if c.DeliveryTimeout > 0 {
		m["delivery.timeout.ms"] = millis(c.DeliveryTimeout)
		m["max.block.ms"] = millis(c.DeliveryTimeout)
	}
	if t := cmp.Or(c.SocketTimeout, c.RequestTimeout); t > 0 {
		m["request.timeout.ms"] = millis(t)
	}
	for k, v := range c.Extra {
		m[k] = fmt.Sprint(v)
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		if strings.ContainsAny(k, "=\n") || strings.Contains(v, "\n") {
			return nil, fmt.Errorf("java producer: config %q = %q: no '=' in a key, no newline anywhere", k, v)
		}
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out, nil
}

func millis(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
