package kproxy

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
)

// ReadLog reads a request log (gzip-compressed or not). A bad line is an
// error naming the file, the line and the field.
func ReadLog(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	br := bufio.NewReader(f)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = gz
	} else {
		r = br
	}
	var out []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for line := 1; sc.Scan(); line++ {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %s", path, line, jsonError(err))
		}
		if e.Kind != KindRequest && e.Kind != KindResponse && e.Kind != KindLost {
			return nil, fmt.Errorf("%s:%d: field \"kind\": %q, want request, response or lost", path, line, e.Kind)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

func jsonError(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		return fmt.Sprintf("field %q: %v", te.Field, err)
	}
	return err.Error()
}

// Exchange is a request and its response (nil when none came: the
// connection closed first, or the log ended).
type Exchange struct {
	Request  Entry
	Response *Entry
}

// Exchanges pairs the log's requests with their responses, by connection
// and correlation id, in the requests' time order. Responses with no
// request and lost streams are left out.
func Exchanges(entries []Entry) []Exchange {
	type id struct {
		conn int64
		corr int32
	}
	var out []Exchange
	open := map[id]int{}
	for i := range entries {
		e := &entries[i]
		k := id{e.Conn, e.Correlation}
		switch e.Kind {
		case KindRequest:
			open[k] = len(out)
			out = append(out, Exchange{Request: *e})
		case KindResponse:
			if j, ok := open[k]; ok {
				out[j].Response = e
				delete(open, k)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Request.Time.Before(out[j].Request.Time) })
	return out
}

// Filter picks exchanges: of a transactional id, a producer id, and APIs
// (by name, any case); zero fields pick all.
type Filter struct {
	Txn  string
	PID  *int64
	APIs []string
}

// Match says whether f picks x. A producer id matches the request's, any
// of its partitions', or the one its response gave (InitProducerID).
func (f Filter) Match(x Exchange) bool {
	r := x.Request
	if len(f.APIs) > 0 && !slices.ContainsFunc(f.APIs, func(a string) bool { return strings.EqualFold(a, r.API) }) {
		return false
	}
	if f.Txn != "" && r.Txn != f.Txn && !slices.ContainsFunc(r.Partitions, func(p Partition) bool { return p.Txn == f.Txn }) {
		return false
	}
	if f.PID == nil {
		return true
	}
	is := func(p *int64) bool { return p != nil && *p == *f.PID }
	if is(r.PID) || (x.Response != nil && is(x.Response.PID)) {
		return true
	}
	return slices.ContainsFunc(r.Partitions, func(p Partition) bool { return is(p.PID) })
}
