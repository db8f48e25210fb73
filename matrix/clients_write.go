package matrix

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// The files WriteClients makes in the differential's directory.
const (
	ClientsMarkdownFile = "CLIENTS.md"
	ClientsHTMLFile     = "clients.html"
)

// WriteClients writes d's CLIENTS.md and clients.html into dir (the
// Options.Out it ran with, so that the run links resolve).
func WriteClients(dir string, d Differential) error {
	v := clientsViewOf(d)
	var md bytes.Buffer
	writeClientsMarkdown(&md, v)
	return writePages(dir, ClientsMarkdownFile, md.Bytes(), ClientsHTMLFile, clientsTemplate, v)
}

// clientsView is the differential as both pages show it.
type clientsView struct {
	Title, Summary string
	Clients        []string
	// Findings are the cells weaker than the model predicts, then the
	// clients weaker than another.
	Findings []noteView
	NotLive  []noteView
	Rows     []diffRowView
	Notes    []string // n/a reasons, numbered from 1
	// Reasons are the model's, one per configuration.
	Reasons []rowView
}

// noteView is one line of a list: where, what, and the runs that show it.
type noteView struct {
	Where, What string
	Links       []link
}

// diffRowView is one configuration under one fault, a cell per client.
type diffRowView struct {
	Config, Fault, Hop, Predicted string
	Cells                         []cellView
	// Difference says which client was weaker than which, and how, or
	// that none was.
	Difference string
	Differs    bool
}

func clientsViewOf(d Differential) clientsView {
	v := clientsView{Title: "Client differential: " + d.Cluster + " cluster", Summary: clientsSummary(d)}
	for _, c := range d.Clients {
		v.Clients = append(v.Clients, c.String())
	}
	if len(d.Matrices) == 0 {
		return v
	}
	m0 := d.Matrices[0]
	notes := map[string]int{}
	for i, r := range m0.Rows {
		v.Reasons = append(v.Reasons, rowView{RowInfo: r, Predicted: r.Predicted().String()})
		for j, c := range m0.Columns {
			v.Rows = append(v.Rows, diffRowOf(d, i, j, c, notes, &v.Notes))
		}
	}
	for _, f := range d.Findings() {
		m, r := d.Matrices[f.Client], m0.Rows[f.Row]
		cv := clientCell(m.Cells[f.Row][f.Col], r)
		v.Findings = append(v.Findings, noteView{Where: where(m0, f.FindingAt) + ", " + d.Clients[f.Client].String(),
			What: fmt.Sprintf("predicted %s %s, observed %s (%s)", r.Hop, cv.Predicted, cv.Observed, cv.Detail), Links: cv.Links})
	}
	for _, diff := range d.Differences() {
		v.Findings = append(v.Findings, noteView{Where: where(m0, FindingAt{diff.Row, diff.Col}),
			What:  diff.Text(d.Clients),
			Links: append(clientLinks(d, diff.Weaker, diff.Row, diff.Col), clientLinks(d, diff.Than, diff.Row, diff.Col)...)})
	}
	for _, f := range d.NotLive() {
		cv := clientCell(d.Matrices[f.Client].Cells[f.Row][f.Col], m0.Rows[f.Row])
		v.NotLive = append(v.NotLive, noteView{Where: where(m0, f.FindingAt) + ", " + d.Clients[f.Client].String(),
			What: cv.Detail, Links: cv.Links})
	}
	return v
}

func clientsSummary(d Differential) string {
	ran, na, harness := d.Counts()
	rows, cols, runs, limit := 0, 0, 0, time.Duration(0)
	if len(d.Matrices) > 0 {
		m := d.Matrices[0]
		rows, cols, runs, limit = len(m.Rows), len(m.Columns), m.Runs, m.TimeLimit
	}
	names := make([]string, len(d.Clients))
	for i, c := range d.Clients {
		names[i] = c.String()
	}
	return fmt.Sprintf("%d client(s) (%s) × %d configuration(s) × %d fault(s): %d cells run (%d run(s) each, time limit %v), "+
		"%d n/a, %d with a harness error, %d weaker than the model predicts, %d difference(s) between clients, %d not live; took %v.",
		len(d.Clients), strings.Join(names, ", "), rows, cols, ran, runs, limit, na, harness,
		len(d.Findings()), len(d.Differences()), len(d.NotLive()), d.Elapsed.Round(time.Second))
}

// diffRowOf is row i under column j, a cell per client, numbering n/a
// reasons into notes as they first appear.
func diffRowOf(d Differential, i, j int, col ColumnInfo, index map[string]int, notes *[]string) diffRowView {
	r := d.Matrices[0].Rows[i]
	rv := diffRowView{Config: r.Name, Fault: col.Name, Hop: string(r.Hop), Predicted: r.Predicted().String()}
	judged := 0
	for _, m := range d.Matrices {
		cv := clientCell(m.Cells[i][j], m.Rows[i])
		if cv.NA != "" {
			if index[cv.NA] == 0 {
				*notes = append(*notes, cv.NA)
				index[cv.NA] = len(*notes)
			}
			cv.Note = index[cv.NA]
		}
		if _, ok := m.Cells[i][j].Observed(r.Hop); ok {
			judged++
		}
		rv.Cells = append(rv.Cells, cv)
	}
	var diffs []string
	for _, diff := range d.differencesAt(i, j) {
		diffs = append(diffs, diff.Text(d.Clients))
	}
	switch {
	case len(diffs) > 0:
		rv.Difference, rv.Differs = strings.Join(diffs, " · "), true
	case judged < 2:
		rv.Difference = fmt.Sprintf("not compared: %d client(s) judged", judged)
	default:
		rv.Difference = "no difference"
	}
	return rv
}

// clientCell is the matrix's cell view with the client hangs added and
// the links made to the run directories, which hold the run page when
// kept whole and the scenario and results alone when kept as evidence.
func clientCell(c Cell, r RowInfo) cellView {
	cv := cellOf(c, r)
	if cv.Status == "na" {
		return cv
	}
	if _, ok := c.Observed(r.Hop); ok {
		cv.Detail += fmt.Sprintf("; %d client hang(s)", c.Hangs())
	}
	if kinds := c.NeverBack(); len(kinds) > 0 {
		cv.Detail += "; never came back: " + strings.Join(kinds, ", ")
	}
	if _, ok := c.Observed(r.Hop); ok && !c.Fired() {
		cv.Detail += "; **the fault never fired**: compared with no other client"
	}
	cv.Links = nil
	for k, run := range c.Runs {
		if run.Dir != "" {
			cv.Links = append(cv.Links, link{Text: fmt.Sprintf("run %d", k+1), Href: run.Dir + "/"})
		}
	}
	return cv
}

// clientLinks are client k's run links in cell i, j, named after it.
func clientLinks(d Differential, k, i, j int) []link {
	ls := clientCell(d.Matrices[k].Cells[i][j], d.Matrices[k].Rows[i]).Links
	for n := range ls {
		ls[n].Text = d.Clients[k].String() + " " + ls[n].Text
	}
	return ls
}

func where(m Matrix, at FindingAt) string {
	return m.Rows[at.Row].Name + " × " + m.Columns[at.Col].Name
}

func writeClientsMarkdown(b *bytes.Buffer, v clientsView) {
	fmt.Fprintf(b, "# %s\n\n%s\n\n", v.Title, v.Summary)
	b.WriteString("Each configuration × fault ran the same scenario (same seed, faults and workload) once per client, " +
		"that client under test for every role it runs (its producers and consumers alike: a consumer crash under a " +
		"producer row crashes that client's consumers), each run judged by the same model; the roles a client does " +
		"not run, and the final reads, stay librdkafka and are named in each run's scenario.json. " +
		"Each cell: the guarantee observed on the hop against the one predicted, the runs that held, the anomalies, " +
		"the liveness (the worst run's), the client hangs and the run directories. A client weaker than the model " +
		"predicts, or weaker than another client under the same scenario (a weaker guarantee, an anomaly the other " +
		"did not show, not live where the other was, hangs where the other had none), is a finding.\n\n## Findings\n\n")
	if len(v.Findings) == 0 {
		b.WriteString("None: every client showed at least the predicted guarantee, and none was weaker than another.\n\n")
	}
	writeNotes(b, v.Findings)
	if len(v.NotLive) > 0 {
		b.WriteString("## Not live\n\nA kind of op never came back after the last heal in these cells:\n\n")
		writeNotes(b, v.NotLive)
	}
	b.WriteString("## Clients\n\n| configuration | fault | predicted |")
	for _, c := range v.Clients {
		fmt.Fprintf(b, " %s |", c)
	}
	b.WriteString(" difference |\n|---|---|---|" + strings.Repeat("---|", len(v.Clients)+1) + "\n")
	for _, r := range v.Rows {
		fmt.Fprintf(b, "| %s | %s | %s %s |", mdEscape(r.Config), mdEscape(r.Fault), r.Hop, r.Predicted)
		for _, c := range r.Cells {
			b.WriteString(" " + mdCell(c) + " |")
		}
		diff := mdEscape(r.Difference)
		if r.Differs {
			diff = "**" + diff + "**"
		}
		b.WriteString(" " + diff + " |\n")
	}
	if len(v.Notes) > 0 {
		b.WriteString("\n## Not applicable\n\n")
		for i, n := range v.Notes {
			fmt.Fprintf(b, "%d. %s\n", i+1, mdEscape(n))
		}
	}
	b.WriteString("\n## Why the model predicts what it does\n\n")
	for _, r := range v.Reasons {
		fmt.Fprintf(b, "- **%s** (%s %s): %s\n", mdEscape(r.Name), r.Hop, r.Predicted, mdEscape(strings.Join(r.Reasons(), "; ")))
	}
}

func writeNotes(b *bytes.Buffer, notes []noteView) {
	for _, n := range notes {
		fmt.Fprintf(b, "- **%s**: %s %s\n", n.Where, n.What, mdLinks(n.Links))
	}
	if len(notes) > 0 {
		b.WriteString("\n")
	}
}
