package histories_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kafkachaos/kafkachaos/histories"
)

// A client records a send and its completion; a checker streams the file.
func Example() {
	dir, _ := os.MkdirTemp("", "history")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "history.jsonl")

	w, err := histories.Create(path)
	if err != nil {
		panic(err)
	}
	rec := histories.NewRecorder(w, histories.RecorderConfig{})
	inv := rec.Invoke(3, histories.FSend, []histories.Mop{histories.Send(1, 17)})
	rec.Complete(inv, histories.OK, []histories.Mop{{F: histories.MSend, Key: 1, Value: 17, Offset: 272}}, nil)
	rec.Nemesis("kill", map[string][]int{"nodes": {2}})
	if err := rec.Close(); err != nil {
		panic(err)
	}

	src, err := histories.Open(path, histories.FormatAuto)
	if err != nil {
		panic(err)
	}
	err = src.Scan(func(op *histories.Op) error {
		// op is reused by the next call: Clone it to keep it.
		fmt.Println(op.Index, op.Process, op.Type, op.F, len(op.Mops))
		return nil
	})
	fmt.Println(err, src.Warnings())
	// Output:
	// 0 3 invoke send 1
	// 1 3 ok send 1
	// 2 -1 info kill 0
	// <nil> []
}

// Bad input is reported with its file, line and field.
func ExampleParseError() {
	in := `{"index":0,"time":1,"process":3,"type":"okk","f":"send","value":[]}` + "\n"
	_, err := histories.NewReader(strings.NewReader(in), "history.jsonl").Next()
	var pe *histories.ParseError
	fmt.Println(errors.As(err, &pe), err)
	// Output: true history.jsonl:1: field "type": unknown op type "okk"
}

// A Jepsen history converts to JSONL and back.
func ExampleExportEDN() {
	edn := `[{:index 0 :type :invoke :process 0 :f :send :value [[:send 1 17]]}
 {:index 1 :type :ok :process 0 :f :send :value [[:send 1 [272 17]]]}]`
	ops, _, err := histories.ReadEDN(strings.NewReader(edn), "history.edn")
	if err != nil {
		panic(err)
	}
	var jl, back bytes.Buffer
	_ = histories.ExportJSONL(&jl, histories.FromOps(ops))
	fmt.Print(jl.String())
	_ = histories.ExportEDN(&back, histories.FromOps(ops))
	fmt.Print(back.String())
	// Output:
	// {"index":0,"time":0,"process":0,"type":"invoke","f":"send","value":[{"f":"send","key":1,"value":17}]}
	// {"index":1,"time":0,"process":0,"type":"ok","f":"send","value":[{"f":"send","key":1,"value":17,"offset":272}]}
	// {:index 0, :time 0, :process 0, :type :invoke, :f :send, :value [[:send 1 17]]}
	// {:index 1, :time 0, :process 0, :type :ok, :f :send, :value [[:send 1 [272 17]]]}
}
