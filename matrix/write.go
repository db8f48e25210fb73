package matrix

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The files Write makes in the matrix's directory.
const (
	MarkdownFile = "MATRIX.md"
	HTMLFile     = "matrix.html"
)

// Write writes m's MATRIX.md and matrix.html into dir (the Options.Out the
// matrix ran with, so that the run links resolve).
func Write(dir string, m Matrix) error {
	v := viewOf(m)
	var md bytes.Buffer
	writeMarkdown(&md, v)
	return writePages(dir, MarkdownFile, md.Bytes(), HTMLFile, pageTemplate, v)
}

// writePages writes the markdown md as mdName and page rendered from v as
// htmlName into dir.
func writePages(dir, mdName string, md []byte, htmlName string, page *template.Template, v any) error {
	if err := os.WriteFile(filepath.Join(dir, mdName), md, 0o644); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	var b bytes.Buffer
	if err := page.Execute(&b, v); err != nil {
		return fmt.Errorf("matrix: rendering %s: %w", htmlName, err)
	}
	if err := os.WriteFile(filepath.Join(dir, htmlName), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	return nil
}

// view is the matrix as both pages show it.
type view struct {
	Title, Summary string
	Findings       []findingView
	// NotLive are the cells whose cluster never came back after a heal.
	NotLive []findingView
	Columns []ColumnInfo
	Rows    []rowView
	Notes   []string // n/a reasons, numbered from 1
}

type rowView struct {
	RowInfo
	Predicted string
	Cells     []cellView
}

type findingView struct {
	Row, Column, Predicted, Observed, Detail string
	Links                                    []link
}

type cellView struct {
	Status    string // finding, held, na, error, notrun
	Mark      string // what the cell says first
	NotLive   bool   // a run's cluster never came back after the last heal
	Observed  string
	Detail    string
	NA        string
	Note      int // the n/a reason's number
	Links     []link
	Predicted string
}

type link struct{ Text, Href string }

func viewOf(m Matrix) view {
	ran, na, harness := m.Counts()
	fs, dead := m.Findings(), m.NotLive()
	v := view{Title: "Semantics matrix: " + m.Cluster + " cluster", Columns: m.Columns,
		Summary: fmt.Sprintf("%d cells run (%d run(s) each, time limit %v), %d n/a, %d with a harness error, %d finding(s), %d not live; took %v.",
			ran, m.Runs, m.TimeLimit, na, harness, len(fs), len(dead), m.Elapsed.Round(time.Second))}
	notes := map[string]int{}
	for i, r := range m.Rows {
		rv := rowView{RowInfo: r, Predicted: r.Predicted().String()}
		for _, c := range m.Cells[i] {
			cv := cellOf(c, r)
			if cv.NA != "" {
				if notes[cv.NA] == 0 {
					v.Notes = append(v.Notes, cv.NA)
					notes[cv.NA] = len(v.Notes)
				}
				cv.Note = notes[cv.NA]
			}
			rv.Cells = append(rv.Cells, cv)
		}
		v.Rows = append(v.Rows, rv)
	}
	listed := func(at FindingAt) findingView {
		cv := v.Rows[at.Row].Cells[at.Col]
		return findingView{Row: m.Rows[at.Row].Name, Column: m.Columns[at.Col].Name,
			Predicted: string(m.Rows[at.Row].Hop) + " " + cv.Predicted, Observed: cv.Observed, Detail: cv.Detail, Links: cv.Links}
	}
	for _, f := range fs {
		v.Findings = append(v.Findings, listed(f))
	}
	for _, f := range dead {
		v.NotLive = append(v.NotLive, listed(f))
	}
	return v
}

func cellOf(c Cell, r RowInfo) cellView {
	cv := cellView{Predicted: r.Predicted().String()}
	if c.NA != "" {
		cv.Status, cv.Mark, cv.NA = "na", "n/a", c.NA
		return cv
	}
	for i, run := range c.Runs {
		if run.Dir != "" {
			cv.Links = append(cv.Links, link{Text: fmt.Sprintf("run %d", i+1), Href: run.Dir + "/index.html"})
		}
	}
	obs, judged := c.Observed(r.Hop)
	cv.Observed = obs.String()
	cv.Detail = fmt.Sprintf("%d/%d held; %s", c.Held(), len(c.Runs), countsText(c.Anomalies()))
	if judged {
		cv.Detail += "; " + c.Liveness().String()
		cv.NotLive = c.Liveness().NotLive
	}
	if n := c.errors(); n > 0 {
		cv.Detail += fmt.Sprintf("; %d harness error(s): %s", n, firstErr(c))
	}
	switch {
	case c.Finding(r):
		cv.Status, cv.Mark = "finding", "FINDING"
	case !judged && c.errors() > 0:
		cv.Status, cv.Mark, cv.Observed = "error", "harness error", "?"
	case !judged:
		cv.Status, cv.Mark, cv.Observed = "notrun", "not run", "?"
	default:
		cv.Status, cv.Mark = "held", "held"
	}
	return cv
}

func firstErr(c Cell) string {
	for _, r := range c.Runs {
		if r.Err != "" {
			return clip(r.Err, 200)
		}
	}
	return ""
}

// clip keeps a long error readable inside a table cell; the run directory
// has the whole of it.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func writeMarkdown(b *bytes.Buffer, v view) {
	fmt.Fprintf(b, "# %s\n\n%s\n\n", v.Title, v.Summary)
	b.WriteString("Each cell: the guarantee observed on the row's hop against the one the model predicts for it, " +
		"the runs that held the runner's verdict, the anomalies found, the runs' liveness (the worst of them) " +
		"and the run directories. A cell observed weaker than predicted is a finding; " +
		"a cell whose cluster never came back after a heal is NOT LIVE.\n\n## Findings\n\n")
	if len(v.Findings) == 0 {
		b.WriteString("None: every cell that ran showed at least the predicted guarantee.\n\n")
	}
	for _, f := range v.Findings {
		fmt.Fprintf(b, "- **%s × %s**: predicted %s, observed %s (%s) %s\n", f.Row, f.Column, f.Predicted, f.Observed,
			f.Detail, mdLinks(f.Links))
	}
	if len(v.Findings) > 0 {
		b.WriteString("\n")
	}
	if len(v.NotLive) > 0 {
		b.WriteString("## Not live\n\nA kind of op never came back after the last heal in these cells:\n\n")
		for _, f := range v.NotLive {
			fmt.Fprintf(b, "- **%s × %s**: %s %s\n", f.Row, f.Column, f.Detail, mdLinks(f.Links))
		}
		b.WriteString("\n")
	}
	b.WriteString("## Matrix\n\n| configuration | hop | predicted |")
	for _, c := range v.Columns {
		fmt.Fprintf(b, " %s |", c.Name)
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(v.Columns)) + "\n")
	for _, r := range v.Rows {
		fmt.Fprintf(b, "| %s | %s | %s |", mdEscape(r.Name), r.Hop, r.Predicted)
		for _, c := range r.Cells {
			b.WriteString(" " + mdCell(c) + " |")
		}
		b.WriteString("\n")
	}
	if len(v.Notes) > 0 {
		b.WriteString("\n## Not applicable\n\n")
		for i, n := range v.Notes {
			fmt.Fprintf(b, "%d. %s\n", i+1, mdEscape(n))
		}
	}
	b.WriteString("\n## Why the model predicts what it does\n\n")
	for _, r := range v.Rows {
		fmt.Fprintf(b, "- **%s** (%s %s): %s\n", mdEscape(r.Name), r.Hop, r.Predicted, mdEscape(strings.Join(r.Reasons(), "; ")))
	}
}

func mdCell(c cellView) string {
	mark := c.Mark
	switch c.Status {
	case "na":
		return fmt.Sprintf("n/a [%d]", c.Note)
	case "finding":
		mark = "**FINDING**"
	}
	if c.NotLive {
		mark += " **NOT LIVE**"
	}
	return fmt.Sprintf("%s: observed %s, predicted %s; %s %s", mark, c.Observed, c.Predicted, mdEscape(c.Detail), mdLinks(c.Links))
}

func mdLinks(ls []link) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("[%s](%s)", l.Text, l.Href)
	}
	return strings.Join(parts, " ")
}

// mdEscape keeps a text inside one table cell.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

//go:embed page.html.tmpl clients.html.tmpl style.html.tmpl
var pages embed.FS

// The pages share one style, so that the two tables read alike.
var (
	pageTemplate    = template.Must(template.ParseFS(pages, "page.html.tmpl", "style.html.tmpl"))
	clientsTemplate = template.Must(template.ParseFS(pages, "clients.html.tmpl", "style.html.tmpl"))
)
