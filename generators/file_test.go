package generators

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sample is a small valid scenario the error tests break one field of.
func sample() Scenario {
	s := RandomIn(ShortSpace(), 7)
	s.Nemesis = []Fault{{Kind: KindLostAck, Start: Duration(time.Second), Duration: Duration(time.Second)}}
	return s
}

func TestValidateNamesTheField(t *testing.T) {
	cases := []struct {
		field string
		edit  func(*Scenario)
	}{
		{"name", func(s *Scenario) { s.Name = "" }},
		{"time-limit", func(s *Scenario) { s.TimeLimit = 0 }},
		{"cluster.provider", func(s *Scenario) { s.Cluster.Provider = "" }},
		{"cluster.brokers", func(s *Scenario) { s.Cluster.Brokers = 0 }},
		{"keys.count", func(s *Scenario) { s.Keys.Count = 0 }},
		{"keys.map", func(s *Scenario) { s.Keys.Map = nil }},
		{"topic.replication.factor", func(s *Scenario) { s.Topic.ReplicationFactor = 9 }},
		{"producer", func(s *Scenario) { s.Producer.EnableIdempotence, s.Producer.Acks = true, 1 }},
		{"consumer", func(s *Scenario) { s.Consumer.CommitStrategy = "sometimes" }},
		{"workload.mode", func(s *Scenario) { s.Workload.Mode = "both" }},
		{"workload.mix", func(s *Scenario) { s.Workload.Mix = Mix{} }},
		{"workload.copiers", func(s *Scenario) { s.Workload.Copiers = 1; s.Keys = SequentialKeys(1, "in", "") }},
		{"nemesis[0].kind", func(s *Scenario) { s.Nemesis[0].Kind = "meteor" }},
		{"nemesis[0].duration", func(s *Scenario) { s.Nemesis[0].Duration = Duration(time.Hour) }},
		{"nemesis[0].params.nodes[0]", func(s *Scenario) { s.Nemesis[0].Params.Nodes = []int32{7} }},
		{"nemesis[0].params.point", func(s *Scenario) { s.Nemesis[0].Params.Point = "later" }},
	}
	for _, c := range cases {
		s := sample()
		if err := s.Validate(); err != nil {
			t.Fatalf("sample is invalid: %v", err)
		}
		c.edit(&s)
		err := s.Validate()
		if err == nil {
			t.Errorf("%s: broken scenario validated", c.field)
			continue
		}
		if !strings.Contains(err.Error(), c.field+":") {
			t.Errorf("%s: error does not name the field: %v", c.field, err)
		}
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: error is not a *FieldError: %T", c.field, err)
		}
	}
}

func TestLoadErrorsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	good, err := json.MarshalIndent(sample(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, text, want string
	}{
		{"unknown-field", strings.Replace(string(good), `"seed"`, `"sede"`, 1), `line 3: json: unknown field "sede"`},
		{"wrong-type", strings.Replace(string(good), `"name": "random-7"`, `"name": 7`, 1), "line 2: field name"},
		{"bad-duration", strings.Replace(string(good), `"time-limit": "`, `"time-limit": "x`, 1), "time-limit"},
		{"cut-off", string(good[:len(good)/2]), "unexpected EOF"},
		{"invalid", strings.Replace(string(good), `"provider": "embedded"`, `"provider": ""`, 1), "cluster.provider: is empty"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil {
			t.Errorf("%s: loaded", c.name)
			continue
		}
		if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q lacks the file name or %q", c.name, err, c.want)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want not-exist", err)
	}
}

func TestSaveIntoRunDirectory(t *testing.T) {
	dir := t.TempDir()
	s := sample()
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != s.Name || len(got.Nemesis) != 1 || got.Nemesis[0].Start != Duration(time.Second) {
		t.Fatalf("loaded %+v", got)
	}
}
