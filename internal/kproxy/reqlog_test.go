package kproxy

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// exchange is one request the test sends and the response its fake broker
// answers with, and what the log must say of them.
type exchange struct {
	name  string
	req   kmsg.Request
	resp  kmsg.Response
	check func(t *testing.T, req, resp Entry)
}

func ptr[T any](v T) *T { return &v }

// batch is a record batch header (magic 2) with no records, as a producer
// would send it: producer id, epoch, base sequence, record count, and the
// transactional attribute.
func batch(pid int64, epoch int16, seq, n int32, txn bool) []byte {
	b := kmsg.RecordBatch{Magic: 2, ProducerID: pid, ProducerEpoch: epoch, FirstSequence: seq, NumRecords: n, LastOffsetDelta: n - 1}
	if txn {
		b.Attributes = 0x10
	}
	out := b.AppendTo(nil)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
	return out
}

func exchanges() []exchange {
	str := func(s string) *string { return &s }
	return []exchange{
		{"produce v9, two batches and an error", &kmsg.ProduceRequest{Version: 9, TransactionID: str("tx-1"), Acks: -1, TimeoutMillis: 1000,
			Topics: []kmsg.ProduceRequestTopic{{Topic: "t", Partitions: []kmsg.ProduceRequestTopicPartition{
				{Partition: 2, Records: append(batch(7, 3, 11, 2, true), batch(7, 3, 13, 1, true)...)},
				{Partition: 5, Records: batch(7, 3, 0, 4, true)}}}}},
			&kmsg.ProduceResponse{Version: 9, Topics: []kmsg.ProduceResponseTopic{{Topic: "t", Partitions: []kmsg.ProduceResponseTopicPartition{
				{Partition: 2, BaseOffset: 42}, {Partition: 5, ErrorCode: 6, BaseOffset: -1}}}}},
			func(t *testing.T, req, resp Entry) {
				want(t, "txn", req.Txn, "tx-1")
				want(t, "acks", *req.Acks, int16(-1))
				want(t, "batches", len(req.Partitions), 3)
				p := req.Partitions[1]
				want(t, "topic", p.Topic, "t")
				want(t, "partition", p.Partition, int32(2))
				want(t, "pid", *p.PID, int64(7))
				want(t, "epoch", *p.Epoch, int16(3))
				want(t, "seq", *p.Seq, int32(13))
				want(t, "records", *p.Records, int32(1))
				want(t, "transactional", *p.Transactional, true)
				want(t, "partition of the third batch", req.Partitions[2].Partition, int32(5))
				want(t, "base offset", *resp.Partitions[0].Offset, int64(42))
				want(t, "error", resp.Partitions[1].Error, "NOT_LEADER_FOR_PARTITION")
			}},
		{"produce v3, idempotent", &kmsg.ProduceRequest{Version: 3, Acks: 1, Topics: []kmsg.ProduceRequestTopic{{Topic: "t",
			Partitions: []kmsg.ProduceRequestTopicPartition{{Partition: 0, Records: batch(9, 0, 5, 1, false)}}}}},
			&kmsg.ProduceResponse{Version: 3, Topics: []kmsg.ProduceResponseTopic{{Topic: "t", Partitions: []kmsg.ProduceResponseTopicPartition{{BaseOffset: 7}}}}},
			func(t *testing.T, req, resp Entry) {
				want(t, "txn", req.Txn, "")
				want(t, "pid", *req.Partitions[0].PID, int64(9))
				want(t, "transactional", *req.Partitions[0].Transactional, false)
				want(t, "base offset", *resp.Partitions[0].Offset, int64(7))
			}},
		{"init producer id", &kmsg.InitProducerIDRequest{Version: 4, TransactionalID: str("tx-1"), TransactionTimeoutMillis: 60000, ProducerID: -1, ProducerEpoch: -1},
			&kmsg.InitProducerIDResponse{Version: 4, ProducerID: 7, ProducerEpoch: 3},
			func(t *testing.T, req, resp Entry) {
				want(t, "txn", req.Txn, "tx-1")
				want(t, "request pid", *req.PID, int64(-1))
				want(t, "pid", *resp.PID, int64(7))
				want(t, "epoch", *resp.Epoch, int16(3))
			}},
		{"add partitions v3", &kmsg.AddPartitionsToTxnRequest{Version: 3, TransactionalID: "tx-1", ProducerID: 7, ProducerEpoch: 3,
			Topics: []kmsg.AddPartitionsToTxnRequestTopic{{Topic: "t", Partitions: []int32{2, 5}}}},
			&kmsg.AddPartitionsToTxnResponse{Version: 3, Topics: []kmsg.AddPartitionsToTxnResponseTopic{{Topic: "t",
				Partitions: []kmsg.AddPartitionsToTxnResponseTopicPartition{{Partition: 2}, {Partition: 5, ErrorCode: 51}}}}},
			func(t *testing.T, req, resp Entry) {
				want(t, "txn", req.Txn, "tx-1")
				want(t, "pid", *req.PID, int64(7))
				want(t, "partitions", len(req.Partitions), 2)
				want(t, "second partition", req.Partitions[1].Partition, int32(5))
				want(t, "error", resp.Partitions[1].Error, "CONCURRENT_TRANSACTIONS")
			}},
		{"add partitions v4, two transactions", &kmsg.AddPartitionsToTxnRequest{Version: 4, Transactions: []kmsg.AddPartitionsToTxnRequestTransaction{
			{TransactionalID: "tx-1", ProducerID: 7, ProducerEpoch: 3, Topics: []kmsg.AddPartitionsToTxnRequestTransactionTopic{{Topic: "t", Partitions: []int32{2}}}},
			{TransactionalID: "tx-2", ProducerID: 8, ProducerEpoch: 1, VerifyOnly: true, Topics: []kmsg.AddPartitionsToTxnRequestTransactionTopic{{Topic: "u", Partitions: []int32{0}}}}}},
			&kmsg.AddPartitionsToTxnResponse{Version: 4, Transactions: []kmsg.AddPartitionsToTxnResponseTransaction{
				{TransactionalID: "tx-2", Topics: []kmsg.AddPartitionsToTxnResponseTransactionTopic{{Topic: "u",
					Partitions: []kmsg.AddPartitionsToTxnResponseTransactionTopicPartition{{Partition: 0, ErrorCode: 48}}}}}}},
			func(t *testing.T, req, resp Entry) {
				want(t, "partitions", len(req.Partitions), 2)
				p := req.Partitions[1]
				want(t, "txn", p.Txn, "tx-2")
				want(t, "pid", *p.PID, int64(8))
				want(t, "epoch", *p.Epoch, int16(1))
				want(t, "response txn", resp.Partitions[0].Txn, "tx-2")
				want(t, "response error", resp.Partitions[0].Error, "INVALID_TXN_STATE")
			}},
		{"add offsets", &kmsg.AddOffsetsToTxnRequest{Version: 3, TransactionalID: "tx-1", ProducerID: 7, ProducerEpoch: 3, Group: "g"},
			&kmsg.AddOffsetsToTxnResponse{Version: 3, ErrorCode: 51},
			func(t *testing.T, req, resp Entry) {
				want(t, "group", req.Group, "g")
				want(t, "epoch", *req.Epoch, int16(3))
				want(t, "error", resp.Error, "CONCURRENT_TRANSACTIONS")
			}},
		{"end txn abort", &kmsg.EndTxnRequest{Version: 3, TransactionalID: "tx-1", ProducerID: 7, ProducerEpoch: 3, Commit: false},
			&kmsg.EndTxnResponse{Version: 3, ErrorCode: 47},
			func(t *testing.T, req, resp Entry) {
				want(t, "txn", req.Txn, "tx-1")
				want(t, "commit", *req.Commit, false)
				want(t, "pid", *req.PID, int64(7))
				want(t, "error", resp.Error, "INVALID_PRODUCER_EPOCH")
			}},
		{"end txn v5 commit", &kmsg.EndTxnRequest{Version: 5, TransactionalID: "tx-1", ProducerID: 7, ProducerEpoch: 3, Commit: true},
			&kmsg.EndTxnResponse{Version: 5, ProducerID: 7, ProducerEpoch: 4},
			func(t *testing.T, req, resp Entry) {
				want(t, "commit", *req.Commit, true)
				want(t, "error", resp.Error, "")
				want(t, "next epoch", *resp.Epoch, int16(4))
			}},
		{"txn offset commit", &kmsg.TxnOffsetCommitRequest{Version: 3, TransactionalID: "tx-1", Group: "g", ProducerID: 7, ProducerEpoch: 3,
			Generation: 1, MemberID: "m", Topics: []kmsg.TxnOffsetCommitRequestTopic{{Topic: "t", Partitions: []kmsg.TxnOffsetCommitRequestTopicPartition{{Partition: 2, Offset: 99}}}}},
			&kmsg.TxnOffsetCommitResponse{Version: 3, Topics: []kmsg.TxnOffsetCommitResponseTopic{{Topic: "t",
				Partitions: []kmsg.TxnOffsetCommitResponseTopicPartition{{Partition: 2, ErrorCode: 22}}}}},
			func(t *testing.T, req, resp Entry) {
				want(t, "group", req.Group, "g")
				want(t, "offset", *req.Partitions[0].Offset, int64(99))
				want(t, "error", resp.Partitions[0].Error, "ILLEGAL_GENERATION")
			}},
		{"find coordinator v3", &kmsg.FindCoordinatorRequest{Version: 3, CoordinatorKey: "tx-1", CoordinatorType: 1},
			&kmsg.FindCoordinatorResponse{Version: 3, NodeID: 2, Host: "h", Port: 9092},
			func(t *testing.T, req, resp Entry) {
				want(t, "keys", strings.Join(req.Keys, ","), "tx-1")
				want(t, "key type", *req.KeyType, int8(1))
				want(t, "node", resp.Coordinators[0].Node, int32(2))
			}},
		{"find coordinator v4", &kmsg.FindCoordinatorRequest{Version: 4, CoordinatorKeys: []string{"tx-1", "tx-2"}, CoordinatorType: 1},
			&kmsg.FindCoordinatorResponse{Version: 4, Coordinators: []kmsg.FindCoordinatorResponseCoordinator{
				{Key: "tx-1", NodeID: 1}, {Key: "tx-2", NodeID: -1, ErrorCode: 15}}},
			func(t *testing.T, req, resp Entry) {
				want(t, "keys", strings.Join(req.Keys, ","), "tx-1,tx-2")
				want(t, "second coordinator", resp.Coordinators[1].Key, "tx-2")
				want(t, "error", resp.Coordinators[1].Error, "COORDINATOR_NOT_AVAILABLE")
			}},
		{"metadata: header only", &kmsg.MetadataRequest{Version: 12}, &kmsg.MetadataResponse{Version: 12},
			func(t *testing.T, req, resp Entry) {
				want(t, "api", req.API, "Metadata")
				want(t, "partitions", len(req.Partitions), 0)
				want(t, "response api", resp.API, "Metadata")
			}},
	}
}

func want[T comparable](t *testing.T, field string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %v, want %v", field, got, want)
	}
}

// fakeBroker answers each request frame with the frame answers holds for
// its correlation id.
func fakeBroker(t *testing.T, answers map[int32][]byte) string {
	t.Helper()
	return listen(t, func(c net.Conn) {
		for {
			frame, err := readFrame(c)
			if err != nil {
				return
			}
			if len(frame) >= 8 {
				c.Write(answers[int32(binary.BigEndian.Uint32(frame[4:]))])
			}
		}
	}).Addr().String()
}

func readFrame(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	frame := make([]byte, binary.BigEndian.Uint32(size[:]))
	_, err := io.ReadFull(r, frame)
	return frame, err
}

// responseFrame is resp as a broker sends it for correlation id corr.
func responseFrame(resp kmsg.Response, corr int32) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	if resp.IsFlexible() {
		b = append(b, 0) // no tagged fields in the header
	}
	b = resp.AppendTo(b)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// logged sets up a Set with its request log open and one proxy to
// upstream, n1; close closes the log and reads it back.
func logged(t *testing.T, upstream string) (s *Set, addr string, close func() []Entry) {
	t.Helper()
	s = New()
	t.Cleanup(func() { s.Close() })
	path := filepath.Join(t.TempDir(), "requests.jsonl.gz")
	stop, err := s.LogRequests(path)
	if err != nil {
		t.Fatal(err)
	}
	if addr, err = s.Add("n1", "127.0.0.1:0", upstream); err != nil {
		t.Fatal(err)
	}
	return s, addr, func() []Entry {
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		entries, err := ReadLog(path)
		if err != nil {
			t.Fatal(err)
		}
		return entries
	}
}

// Each transaction API's request and response, written through a proxy
// with its log open, come back from the log with the fields that explain
// a transaction, paired by correlation id.
func TestRequestLogDecodesEachAPI(t *testing.T) {
	xs := exchanges()
	answers := map[int32][]byte{}
	for i, x := range xs {
		answers[int32(100+i)] = responseFrame(x.resp, int32(100+i))
	}
	_, addr, closeLog := logged(t, fakeBroker(t, answers))
	c := dial(t, addr)
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("producer-1"))
	for i, x := range xs {
		if _, err := c.Write(f.AppendRequest(nil, x.req, int32(100+i))); err != nil {
			t.Fatal(err)
		}
		if _, err := readFrame(c); err != nil {
			t.Fatal(err)
		}
	}
	got := Exchanges(closeLog())
	if len(got) != len(xs) {
		t.Fatalf("%d exchanges in the log, want %d: %+v", len(got), len(xs), got)
	}
	for i, x := range xs {
		t.Run(x.name, func(t *testing.T) {
			req, resp := got[i].Request, got[i].Response
			want(t, "api", req.Key, x.req.Key())
			want(t, "version", req.Version, x.req.GetVersion())
			want(t, "correlation", req.Correlation, int32(100+i))
			want(t, "client id", req.ClientID, "producer-1")
			want(t, "broker", req.Broker, "n1")
			want(t, "client", req.Client, c.LocalAddr().String())
			want(t, "undecoded", req.Undecoded, "")
			if resp == nil {
				t.Fatalf("no response matched")
			}
			want(t, "response undecoded", resp.Undecoded, "")
			want(t, "response conn", resp.Conn, req.Conn)
			// the duration is read on the monotonic clock, the times on the wall clock
			if d := resp.Time.Sub(req.Time).Microseconds() - resp.DurationUs; resp.Time.Before(req.Time) || d < -1000 || d > 1000 {
				t.Errorf("response at %v, %d µs after the request at %v", resp.Time, resp.DurationUs, req.Time)
			}
			x.check(t, req, *resp)
		})
	}
}

// A frame whose body cannot be decoded is logged with its header and the
// reason; a stream that is not Kafka frames is logged as lost, and the
// bytes still pass.
func TestRequestLogKeepsTheHeaderOfABadFrame(t *testing.T) {
	_, addr, closeLog := logged(t, fakeBroker(t, map[int32][]byte{}))
	c := dial(t, addr)
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("p"))
	frame := f.AppendRequest(nil, &kmsg.EndTxnRequest{Version: 3, TransactionalID: "tx-1", ProducerID: 7}, 5)
	frame = frame[:len(frame)-4] // cut the epoch and commit
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	c.Write(frame)
	c.Write([]byte{0, 0, 0, 1, 'x'})
	entries := closeLogAfter(t, c, closeLog)
	if len(entries) != 2 {
		t.Fatalf("%d entries, want a request and a lost stream: %+v", len(entries), entries)
	}
	r := entries[0]
	want(t, "api", r.API, "EndTxn")
	want(t, "correlation", r.Correlation, int32(5))
	want(t, "client id", r.ClientID, "p")
	if r.Undecoded == "" || r.PID != nil {
		t.Errorf("a cut EndTxn decoded: pid %v, undecoded %q", r.PID, r.Undecoded)
	}
	want(t, "kind", entries[1].Kind, KindLost)
}

// The taps are no fault's toxics: Active does not list them, Heal leaves
// them, and requests are logged across a toxic's coming and going, with
// their times as the proxy got them, before any toxic.
func TestRequestLogOutlivesHeal(t *testing.T) {
	end := &kmsg.EndTxnRequest{Version: 3, TransactionalID: "tx-1", ProducerID: 7, Commit: true}
	answers := map[int32][]byte{1: responseFrame(&kmsg.EndTxnResponse{Version: 3}, 1), 2: responseFrame(&kmsg.EndTxnResponse{Version: 3}, 2),
		3: responseFrame(&kmsg.EndTxnResponse{Version: 3}, 3)}
	s, addr, closeLog := logged(t, fakeBroker(t, answers))
	c := dial(t, addr)
	f := kmsg.NewRequestFormatter()
	send := func(corr int32) {
		c.Write(f.AppendRequest(nil, end, corr))
		if _, err := readFrame(c); err != nil {
			t.Fatal(err)
		}
	}
	send(1)
	if err := s.Apply("n1", "slow", Toxic{Kind: Latency, Stream: "downstream", Latency: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if active, _ := s.Active("n1"); len(active) != 1 {
		t.Errorf("active toxics %v, want only the latency", active)
	}
	send(2)
	if err := s.Heal(context.Background()); err != nil {
		t.Fatal(err)
	}
	send(3)
	xs := Exchanges(closeLog())
	if len(xs) != 3 {
		t.Fatalf("%d exchanges logged, want 3: %+v", len(xs), xs)
	}
	for i, x := range xs {
		if x.Request.Correlation != int32(i+1) || x.Response == nil {
			t.Errorf("exchange %d: correlation %d, response %v", i, x.Request.Correlation, x.Response)
		}
	}
	if d := xs[1].Response.DurationUs; d >= 20000 {
		t.Errorf("the response under 20 ms of downstream latency took %d µs: the tap saw it after the toxic, not as the broker sent it", d)
	}
}

// closeLogAfter closes c and the log once the proxy has passed what c
// wrote: a connection's close reaches the tap after its bytes.
func closeLogAfter(t *testing.T, c net.Conn, closeLog func() []Entry) []Entry {
	t.Helper()
	c.(*net.TCPConn).CloseWrite()
	io.Copy(io.Discard, c)
	return closeLog()
}

// A franz-go transactional producer through the proxy to an in-process
// Kafka: the log holds its InitProducerID, Produce and EndTxn, all with the
// producer id the broker gave it (kfake speaks transactions v2, KIP-890:
// a produce adds its partition, so no AddPartitionsToTxn is sent).
func TestRequestLogFollowsATransaction(t *testing.T) {
	kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	broker := kc.ListenAddrs()[0]
	_, addr, closeLog := logged(t, broker)
	var d net.Dialer
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.DefaultProduceTopic("t"), kgo.TransactionalID("tx-a"),
		kgo.Dialer(func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, commit := range []kgo.TransactionEndTry{kgo.TryCommit, kgo.TryAbort} {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := cl.EndTransaction(ctx, commit); err != nil {
			t.Fatal(err)
		}
	}
	cl.Close()
	var pid int64 = -1
	seen := map[string]int{}
	for _, x := range Exchanges(closeLog()) {
		r := x.Request
		if r.Txn != "tx-a" && r.API != "Produce" {
			continue
		}
		seen[r.API]++
		switch r.API {
		case "InitProducerID":
			pid = *x.Response.PID
		case "Produce":
			p := r.Partitions[0]
			if *p.PID != pid || !*p.Transactional || r.Txn != "tx-a" || x.Response.Partitions[0].Offset == nil {
				t.Errorf("produce %+v of transaction %q (producer id %d), response %+v", p, r.Txn, pid, x.Response)
			}
		case "EndTxn":
			if *r.PID != pid || *r.Commit != (seen["EndTxn"] == 1) {
				t.Errorf("EndTxn %d: producer id %d, commit %v; want %d, %v", seen["EndTxn"], *r.PID, *r.Commit, pid, seen["EndTxn"] == 1)
			}
		}
	}
	if seen["InitProducerID"] != 1 || seen["Produce"] != 2 || seen["EndTxn"] != 2 {
		t.Errorf("requests of tx-a by API: %v", seen)
	}
}
