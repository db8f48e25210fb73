package matrix

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// Client is a client under test as --clients names it: NAME or
// NAME@VERSION.
type Client struct{ Name, Version string }

func (c Client) String() string {
	if c.Version == "" {
		return c.Name
	}
	return c.Name + "@" + c.Version
}

// slug is c as a part of a run directory's name.
func (c Client) slug() string { return strings.ReplaceAll(c.String(), "@", "-") }

// DefaultClients are every client generators can run, each at its
// default version.
func DefaultClients() []Client {
	var out []Client
	for _, name := range generators.ClientNames() {
		out = append(out, Client{Name: name})
	}
	return out
}

// ParseClients reads a comma list of NAME[@VERSION]. An unknown client, a
// version it cannot take, or the same client twice is an error.
func ParseClients(list string) ([]Client, error) {
	var out []Client
	for _, v := range strings.Split(list, ",") {
		name, version, err := generators.ParseClient(strings.TrimSpace(v))
		if err != nil {
			return nil, err
		}
		c := Client{Name: name, Version: version}
		if !slices.Contains(generators.ClientNames(), name) {
			return nil, fmt.Errorf("--clients: unknown client %q, want one of %v", name, generators.ClientNames())
		}
		if slices.Contains(out, c) {
			return nil, fmt.Errorf("--clients: %s named twice", c)
		}
		s := Base("embedded", time.Second)
		generators.UseClient(&s, name, version)
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("--clients %s: %w", c, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// clientNA says why client cannot be the client under test of a row whose
// cell scenario, with UseClient applied, is s: UseClient left the workers
// of the row's hop to librdkafka, as the client cannot play them in this
// scenario.
func clientNA(s generators.Scenario, c Client, h Hop) string {
	for _, role := range hopRoles(h) {
		if s.ClientOf(role) != c.Name {
			return fmt.Sprintf("the %s client's %s workers cannot play this scenario (generators.UseClient leaves them to librdkafka)", c.Name, role)
		}
	}
	return ""
}

// hopRoles are the roles whose workers make hop h: end to end, every role
// that has workers (a role without any keeps the client under test).
func hopRoles(h Hop) []string {
	switch h {
	case HopProducer:
		return []string{generators.RoleProducer}
	case HopConsumer:
		return []string{generators.RoleConsumer}
	}
	return []string{generators.RoleProducer, generators.RoleConsumer, generators.RoleCopier, generators.RoleTxnQueue}
}

// Differential is one matrix per client over the same rows, columns and
// seeds: the same scenario through each client, judged by the same model.
type Differential struct {
	Cluster string
	Clients []Client
	// Matrices[k] is Clients[k]'s.
	Matrices []Matrix
	Elapsed  time.Duration
}

// RunClients runs opts' matrix once per client, the client under test set
// on every cell's scenario (UseClient); a client that cannot run a row's
// hop has that cell n/a.
func RunClients(ctx context.Context, opts Options, clients []Client) (Differential, error) {
	if len(clients) == 0 {
		return Differential{}, errors.New("matrix: no client to compare")
	}
	d := Differential{Cluster: opts.Cluster, Clients: clients}
	t0 := time.Now()
	for _, c := range clients {
		o := opts
		o.Client = c
		m, err := Run(ctx, o)
		if err != nil {
			d.Elapsed = time.Since(t0)
			return d, err
		}
		d.Matrices = append(d.Matrices, m)
	}
	d.Elapsed = time.Since(t0)
	return d, nil
}

// Difference is a client observed weaker than another under the same
// scenario.
type Difference struct {
	Row, Col int
	// Weaker and Than index Clients.
	Weaker, Than int
	// By is how: the hop's guarantee, anomalies the other did not show,
	// liveness, client hangs.
	By []string
	// Allowed says the weaker client still showed what the model predicts
	// and stayed live: the clients differ inside the prediction.
	Allowed bool
}

// Text is "java weaker than librdkafka: lost-write 3".
func (d Difference) Text(clients []Client) string {
	allowed := ""
	if d.Allowed {
		allowed = " (within the prediction)"
	}
	return fmt.Sprintf("%s weaker than %s%s: %s", clients[d.Weaker], clients[d.Than], allowed, strings.Join(d.By, "; "))
}

// Differences are the cells where a client was weaker than another, row
// by row, column by column.
func (d Differential) Differences() []Difference {
	var out []Difference
	if len(d.Matrices) == 0 {
		return nil
	}
	m0 := d.Matrices[0]
	for i := range m0.Rows {
		for j := range m0.Columns {
			out = append(out, d.differencesAt(i, j)...)
		}
	}
	return out
}

func (d Differential) differencesAt(i, j int) []Difference {
	var out []Difference
	row := d.Matrices[0].Rows[i]
	for a, ma := range d.Matrices {
		for b, mb := range d.Matrices {
			if a == b {
				continue
			}
			ca := ma.Cells[i][j]
			if by := weakerBy(row.Hop, ca, mb.Cells[i][j]); len(by) > 0 {
				out = append(out, Difference{Row: i, Col: j, Weaker: a, Than: b, By: by,
					Allowed: !ca.Finding(row) && !ca.Liveness().NotLive})
			}
		}
	}
	return out
}

// weakerBy says how cell a showed less than cell b on hop h: a weaker
// guarantee, an anomaly b did not show, not live where b was (naming the
// kinds of op, since a role the client under test does not run may be
// the one that stopped), client hangs where b had none. Nil when a is not
// weaker, when either was not judged, or when the column's fault fired in
// no run of either (a client that met no fault, a JVM still starting when
// the crashes were due, proves nothing against one that met it): counts
// of an anomaly both showed depend on timing, not on the client.
func weakerBy(h Hop, a, b Cell) []string {
	ga, okA := a.Observed(h)
	gb, okB := b.Observed(h)
	if !okA || !okB || !a.Fired() || !b.Fired() {
		return nil
	}
	var by []string
	if !model.Satisfies(ga, gb) {
		by = append(by, fmt.Sprintf("%s observed %s against %s", h, ga, gb))
	}
	anomA, anomB := a.Anomalies(), b.Anomalies()
	extra := map[string]int64{}
	for name, n := range anomA {
		if n > 0 && anomB[name] == 0 {
			extra[name] = n
		}
	}
	if len(extra) > 0 {
		by = append(by, countsText(extra))
	}
	if a.Liveness().NotLive && !b.Liveness().NotLive {
		by = append(by, notLiveText(a.NeverBack()))
	}
	if a.Hangs() > 0 && b.Hangs() == 0 {
		by = append(by, fmt.Sprintf("%d client hang(s)", a.Hangs()))
	}
	return by
}

// notLiveText is "NOT LIVE", saying which kinds of op never came back
// when the runs say.
func notLiveText(kinds []string) string {
	if len(kinds) == 0 {
		return "NOT LIVE"
	}
	return "NOT LIVE (" + strings.Join(kinds, ", ") + " never came back after the heal)"
}

// ClientFinding is a cell where a client showed less than the model
// predicts.
type ClientFinding struct {
	FindingAt
	Client int
}

// Findings are each client's cells observed weaker than predicted.
func (d Differential) Findings() []ClientFinding { return d.perClient(Matrix.Findings) }

// NotLive are each client's cells whose cluster never came back after a
// heal.
func (d Differential) NotLive() []ClientFinding { return d.perClient(Matrix.NotLive) }

// perClient is cells(m) of every client's matrix m, client by client.
func (d Differential) perClient(cells func(Matrix) []FindingAt) []ClientFinding {
	var out []ClientFinding
	for k, m := range d.Matrices {
		for _, f := range cells(m) {
			out = append(out, ClientFinding{FindingAt: f, Client: k})
		}
	}
	return out
}

// Counts add up the clients' matrices' Counts.
func (d Differential) Counts() (ran, na, harness int) {
	for _, m := range d.Matrices {
		r, n, h := m.Counts()
		ran, na, harness = ran+r, na+n, harness+h
	}
	return ran, na, harness
}
