package realbroker

import (
	"reflect"
	"strings"
	"testing"
)

const c = ClientNode

func TestPartitionLinks(t *testing.T) {
	nodes := []int32{1, 2, 3}
	for _, tc := range []struct {
		name  string
		comps [][]int32
		want  [][2]int32
	}{
		{"halves", [][]int32{{1}, {2, 3}}, [][2]int32{{1, 2}, {1, 3}}},
		{"clients with 1", [][]int32{{c, 1}, {2, 3}}, [][2]int32{{c, 2}, {c, 3}, {1, 2}, {1, 3}}},
		{"one component", [][]int32{{1, 2, 3}}, nil},
	} {
		got, err := PartitionLinks(tc.comps, nodes)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

func TestPartitionLinksRejects(t *testing.T) {
	nodes := []int32{1, 2, 3}
	for comps, want := range map[string][][]int32{
		"in two components": {{1, 2}, {2, 3}},
		"in no component":   {{1}, {2}},
		"no node 4":         {{1, 2}, {3, 4}},
	} {
		if _, err := PartitionLinks(want, nodes); err == nil || !strings.Contains(err.Error(), comps) {
			t.Errorf("%v: err %v, want it to say %q", want, err, comps)
		}
	}
}

func TestCheckLinks(t *testing.T) {
	nodes := []int32{1, 2, 3}
	if err := CheckLinks([][2]int32{{1, 2}, {c, 3}}, nodes); err != nil {
		t.Errorf("valid links: %v", err)
	}
	if err := CheckLinks([][2]int32{{2, 2}}, nodes); err == nil || !strings.Contains(err.Error(), "itself") {
		t.Errorf("self link: %v", err)
	}
	if err := CheckLinks([][2]int32{{1, 7}}, nodes); err == nil || !strings.Contains(err.Error(), "no node 7") {
		t.Errorf("unknown node: %v", err)
	}
}

func TestCutFromAndClientCut(t *testing.T) {
	links := [][2]int32{{1, 2}, {3, 1}, {c, 2}}
	if got := CutFrom(links, 1); !reflect.DeepEqual(got, []int32{2, 3}) {
		t.Errorf("CutFrom(1) = %v", got)
	}
	if got := CutFrom(links, 2); !reflect.DeepEqual(got, []int32{1, c}) {
		t.Errorf("CutFrom(2) = %v", got)
	}
	if !ClientCut(links, 2) || ClientCut(links, 1) || ClientCut(nil, 2) {
		t.Errorf("ClientCut wrong for %v", links)
	}
}
