package kproxy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// conn is one proxied connection. The decoder alone touches its streams
// and pending requests.
type conn struct {
	id             int64
	broker, client string
	log            *reqLog // nil: the connection began with no log open

	streams [2]framer // upstream (requests), downstream (responses)
	pending map[int32]pendingReq
}

// framer cuts a stream into Kafka frames (a 4-byte size, then the frame).
type framer struct {
	buf   []byte
	at    time.Time // when the first byte of the frame in buf arrived
	blind bool      // the framing was lost: nothing more is read
}

// pendingReq is a request waiting for its response.
type pendingReq struct {
	key, version int16
	at           time.Time
}

// maxFrame bounds a frame's size: a larger one means the framing was lost.
const maxFrame = 1 << 30

// handle reads one chunk of a stream. Nothing in a stream can stop the
// decoder: a frame it cannot read loses that stream only.
func (l *reqLog) handle(ch chunk) {
	c := ch.c
	dir := 1
	if ch.up {
		dir = 0
	}
	f := &c.streams[dir]
	if f.blind {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			f.blind, f.buf = true, nil
			l.write(&Entry{Time: ch.at, Kind: KindLost, Conn: c.id, Client: c.client, Broker: c.broker, Key: int16(dir),
				Undecoded: fmt.Sprintf("the decoder failed: %v", r)})
		}
	}()
	if ch.lost {
		f.blind, f.buf = true, nil
		l.write(&Entry{Time: time.Now(), Kind: KindLost, Conn: c.id, Client: c.client, Broker: c.broker, Key: int16(dir)})
		return
	}
	data, at := ch.data, ch.at
	buf := data
	if len(f.buf) == 0 {
		f.at = at
	} else {
		f.buf = append(f.buf, data...)
		buf = f.buf
	}
	for len(buf) >= 4 {
		size := int(int32(binary.BigEndian.Uint32(buf)))
		if size < 4 || (ch.up && size < 10) || size > maxFrame {
			f.blind, f.buf = true, nil
			l.write(&Entry{Time: at, Kind: KindLost, Conn: c.id, Client: c.client, Broker: c.broker, Key: int16(dir),
				Undecoded: fmt.Sprintf("frame size %d: the stream is not Kafka frames from here on", size)})
			return
		}
		if len(buf) < 4+size {
			break
		}
		if ch.up {
			l.request(c, buf[4:4+size], f.at)
		} else {
			l.response(c, buf[4:4+size], f.at)
		}
		buf, f.at = buf[4+size:], at
	}
	f.buf = append(f.buf[:0], buf...)
}

// request logs one request frame (after its size) and remembers it for
// its response.
func (l *reqLog) request(c *conn, frame []byte, at time.Time) {
	e := &Entry{Time: at, Kind: KindRequest, Conn: c.id, Client: c.client, Broker: c.broker,
		Key: int16(binary.BigEndian.Uint16(frame)), Version: int16(binary.BigEndian.Uint16(frame[2:])),
		Correlation: int32(binary.BigEndian.Uint32(frame[4:]))}
	e.API = kmsg.NameForKey(e.Key)
	body := frame[10:]
	if n := int(int16(binary.BigEndian.Uint16(frame[8:]))); n > len(body) {
		e.Undecoded = fmt.Sprintf("client id of %d bytes past the frame's end", n)
	} else if n > 0 {
		e.ClientID, body = string(body[:n]), body[n:]
	}
	if e.Undecoded == "" {
		e.Undecoded = errString(decodeRequest(e, body))
	}
	if e.Key != APIProduce || e.Acks == nil || *e.Acks != 0 { // acks=0: no response comes
		if c.pending == nil {
			c.pending = map[int32]pendingReq{}
		}
		c.pending[e.Correlation] = pendingReq{e.Key, e.Version, at}
	}
	l.write(e)
}

// response logs one response frame, matched to its request.
func (l *reqLog) response(c *conn, frame []byte, at time.Time) {
	e := &Entry{Time: at, Kind: KindResponse, Conn: c.id, Client: c.client, Broker: c.broker,
		Correlation: int32(binary.BigEndian.Uint32(frame))}
	p, ok := c.pending[e.Correlation]
	if !ok {
		e.Key, e.Undecoded = -1, "no request with this correlation id on the connection"
		l.write(e)
		return
	}
	delete(c.pending, e.Correlation)
	e.Key, e.Version, e.API, e.DurationUs = p.key, p.version, kmsg.NameForKey(p.key), at.Sub(p.at).Microseconds()
	e.Undecoded = errString(decodeResponse(e, frame[4:]))
	l.write(e)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// decodeRequest fills e from the body of a transaction API's request
// (after the header's client id); other APIs are left at their header.
func decodeRequest(e *Entry, body []byte) error {
	req := kmsg.RequestForKey(e.Key)
	if req == nil || !transactional(e.Key) {
		return nil
	}
	if err := readBody(req, e.Version, body, e.API+" v"+strconv.Itoa(int(e.Version))); err != nil {
		return err
	}
	switch r := req.(type) {
	case *kmsg.ProduceRequest:
		produceRequest(e, r)
	case *kmsg.InitProducerIDRequest:
		e.Txn, e.PID, e.Epoch = deref(r.TransactionalID), &r.ProducerID, &r.ProducerEpoch
	case *kmsg.AddPartitionsToTxnRequest:
		addPartitionsRequest(e, r)
	case *kmsg.AddOffsetsToTxnRequest:
		e.Txn, e.PID, e.Epoch, e.Group = r.TransactionalID, &r.ProducerID, &r.ProducerEpoch, r.Group
	case *kmsg.EndTxnRequest:
		e.Txn, e.PID, e.Epoch, e.Commit = r.TransactionalID, &r.ProducerID, &r.ProducerEpoch, &r.Commit
	case *kmsg.TxnOffsetCommitRequest:
		e.Txn, e.PID, e.Epoch, e.Group = r.TransactionalID, &r.ProducerID, &r.ProducerEpoch, r.Group
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				e.Partitions = append(e.Partitions, Partition{Topic: topicName(t.Topic, t.TopicID), Partition: p.Partition, Offset: &p.Offset})
			}
		}
	case *kmsg.FindCoordinatorRequest:
		e.KeyType, e.Keys = &r.CoordinatorType, r.CoordinatorKeys
		if r.Version < 4 {
			e.Keys = []string{r.CoordinatorKey}
		}
	}
	return nil
}

// message is a kmsg request or response.
type message interface {
	SetVersion(int16)
	IsFlexible() bool
	ReadFrom([]byte) error
}

// readBody decodes body (after the header's fixed fields) into m at
// version; what names it in an error. A body kmsg cannot read is an error,
// never a panic.
func readBody(m message, version int16, body []byte, what string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decoding %s: %v", what, r)
		}
	}()
	m.SetVersion(version)
	if m.IsFlexible() {
		if body, err = skipTags(body); err != nil {
			return fmt.Errorf("decoding %s: %w", what, err)
		}
	}
	if err := m.ReadFrom(body); err != nil {
		return fmt.Errorf("decoding %s: %w", what, err)
	}
	return nil
}

// transactional says whether the log decodes key's bodies.
func transactional(key int16) bool {
	switch key {
	case APIProduce, APIFindCoordinator, APIInitProducerID, APIAddPartitions, APIAddOffsetsToTxn, APIEndTxn, APITxnOffsetCommit:
		return true
	}
	return false
}

func produceRequest(e *Entry, r *kmsg.ProduceRequest) {
	e.Txn, e.Acks = deref(r.TransactionID), &r.Acks
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			for _, b := range batches(p.Records) {
				b.Topic, b.Partition = topicName(t.Topic, t.TopicID), p.Partition
				e.Partitions = append(e.Partitions, b)
			}
		}
	}
}

// batches reads the headers of the record batches in records (magic 2):
// producer id, epoch, base sequence, record count, transactional. An
// older message set or a cut batch is one partition with none of them.
func batches(records []byte) []Partition {
	var out []Partition
	for len(records) >= 61 && records[16] == 2 {
		pid := int64(binary.BigEndian.Uint64(records[43:]))
		epoch := int16(binary.BigEndian.Uint16(records[51:]))
		seq := int32(binary.BigEndian.Uint32(records[53:]))
		n := int32(binary.BigEndian.Uint32(records[57:]))
		txn := binary.BigEndian.Uint16(records[21:])&0x10 != 0
		out = append(out, Partition{PID: &pid, Epoch: &epoch, Seq: &seq, Records: &n, Transactional: &txn})
		size := 12 + int(int32(binary.BigEndian.Uint32(records[8:])))
		if size < 61 || size > len(records) {
			break
		}
		records = records[size:]
	}
	if len(out) == 0 {
		out = append(out, Partition{})
	}
	return out
}

func addPartitionsRequest(e *Entry, r *kmsg.AddPartitionsToTxnRequest) {
	if r.Version < 4 {
		e.Txn, e.PID, e.Epoch = r.TransactionalID, &r.ProducerID, &r.ProducerEpoch
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				e.Partitions = append(e.Partitions, Partition{Topic: t.Topic, Partition: p})
			}
		}
		return
	}
	for i := range r.Transactions {
		x := &r.Transactions[i]
		for _, t := range x.Topics {
			for _, p := range t.Partitions {
				e.Partitions = append(e.Partitions, Partition{Topic: t.Topic, Partition: p, Txn: x.TransactionalID,
					PID: &x.ProducerID, Epoch: &x.ProducerEpoch})
			}
		}
	}
}

// decodeResponse fills e from the body of a transaction API's response
// (after the correlation id).
func decodeResponse(e *Entry, body []byte) error {
	resp := kmsg.ResponseForKey(e.Key)
	if resp == nil || !transactional(e.Key) {
		return nil
	}
	if err := readBody(resp, e.Version, body, e.API+" v"+strconv.Itoa(int(e.Version))+" response"); err != nil {
		return err
	}
	switch r := resp.(type) {
	case *kmsg.ProduceResponse:
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				e.Partitions = append(e.Partitions, Partition{Topic: topicName(t.Topic, t.TopicID), Partition: p.Partition,
					Offset: &p.BaseOffset, Error: errName(p.ErrorCode)})
			}
		}
	case *kmsg.InitProducerIDResponse:
		e.PID, e.Epoch, e.Error = &r.ProducerID, &r.ProducerEpoch, errName(r.ErrorCode)
	case *kmsg.AddPartitionsToTxnResponse:
		addPartitionsResponse(e, r)
	case *kmsg.AddOffsetsToTxnResponse:
		e.Error = errName(r.ErrorCode)
	case *kmsg.EndTxnResponse:
		e.Error = errName(r.ErrorCode)
		if r.Version >= 5 {
			e.PID, e.Epoch = &r.ProducerID, &r.ProducerEpoch
		}
	case *kmsg.TxnOffsetCommitResponse:
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				e.Partitions = append(e.Partitions, Partition{Topic: topicName(t.Topic, t.TopicID), Partition: p.Partition, Error: errName(p.ErrorCode)})
			}
		}
	case *kmsg.FindCoordinatorResponse:
		findCoordinatorResponse(e, r)
	}
	return nil
}

func addPartitionsResponse(e *Entry, r *kmsg.AddPartitionsToTxnResponse) {
	e.Error = errName(r.ErrorCode)
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			e.Partitions = append(e.Partitions, Partition{Topic: t.Topic, Partition: p.Partition, Error: errName(p.ErrorCode)})
		}
	}
	for _, x := range r.Transactions {
		for _, t := range x.Topics {
			for _, p := range t.Partitions {
				e.Partitions = append(e.Partitions, Partition{Topic: t.Topic, Partition: p.Partition, Txn: x.TransactionalID,
					Error: errName(p.ErrorCode)})
			}
		}
	}
}

func findCoordinatorResponse(e *Entry, r *kmsg.FindCoordinatorResponse) {
	if r.Version < 4 {
		e.Error = errName(r.ErrorCode)
		e.Coordinators = []Coordinator{{Node: r.NodeID, Error: e.Error}}
		return
	}
	for _, c := range r.Coordinators {
		e.Coordinators = append(e.Coordinators, Coordinator{Key: c.Key, Node: c.NodeID, Error: errName(c.ErrorCode)})
	}
}

// skipTags skips a flexible header's tagged fields at the start of b.
func skipTags(b []byte) ([]byte, error) {
	n, b, err := uvarint(b)
	for ; err == nil && n > 0; n-- {
		var size uint64
		if _, b, err = uvarint(b); err != nil { // the tag
			break
		}
		if size, b, err = uvarint(b); err != nil {
			break
		}
		if size > uint64(len(b)) {
			return nil, errors.New("a header's tagged field runs past the frame's end")
		}
		b = b[size:]
	}
	return b, err
}

func uvarint(b []byte) (uint64, []byte, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, nil, errors.New("a header's tagged fields are cut")
	}
	return v, b[n:], nil
}

// errName is a Kafka error code's name; "" for none.
func errName(code int16) string {
	if code == 0 {
		return ""
	}
	var ke *kerr.Error
	if err := kerr.ErrorForCode(code); errors.As(err, &ke) && ke.Code == code {
		return ke.Message
	}
	return fmt.Sprintf("error code %d", code)
}

// topicName is a topic's name, or its id's hex where the version sends
// ids.
func topicName(name string, id [16]byte) string {
	if name == "" && id != [16]byte{} {
		return fmt.Sprintf("%x", id)
	}
	return name
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
