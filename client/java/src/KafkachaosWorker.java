// KafkachaosWorker runs one Kafka client (kafka-clients) for kafkachaos, a
// producer, a consumer, a transactional queue or a transactional copier: it reads requests from stdin and writes answers
// to stdout, one JSON object a line.
//
// Producer (the default role):
//
//   args:     [kafkachaos-worker owner=TAG] key=value ...   producer configs
//   stdout:   {"ready":true}                                once the producer is made
//   stdin:    {"op":"send","id":N,"topic":T,"partition":P,"value":V}
//   stdout:   {"id":N,"offset":O}                           acknowledged (O -1: unknown, acks=0)
//             {"id":N,"error":CLASS,"message":M,"before-append":B}
//   stdin:    {"op":"close","timeout-ms":MS}                close, then {"closed":true} and exit 0
//   stdout:   {"fatal":CLASS,"message":M}                   the client could not be made; exit 1
//
// before-append is true when the exception came out of send() itself (the
// calling thread, while send() ran): the record never reached the
// accumulator, so nothing of it can have been transmitted. Completions
// from the producer's network thread are false. Which classes make a
// definite failure is decided by the harness, not here.
//
// Consumer (arg kafkachaos.role=consumer; one request at a time, each
// answered by {"id":N,...} or {"id":N,"error":CLASS,"message":M,...}):
//
//   {"op":"subscribe","id":N,"topics":"a,b"}               subscribe, with a rebalance listener
//   {"op":"assign","id":N,"partitions":"t:0,t:1"}          assign, from the beginning
//   {"op":"poll","id":N,"max":M,"wait-ms":W}               -> {"id":N,"items":[...]}
//   {"op":"commit","id":N,"offsets":"t:0:5","timeout-ms":T} commitSync
//   {"op":"committed","id":N,"partitions":"t:0","timeout-ms":T} -> {"id":N,"offsets":[[T,P,O],...]}
//   {"op":"seek","id":N,"offsets":"t:0:5"}
//   {"op":"close","timeout-ms":MS}                         close, then {"closed":true} and exit 0
//
// A poll's items are, in the order they happened: ["rec",T,P,OFFSET,VALUE]
// for a record handed to the harness, ["rev",T,P] for a partition revoked
// or lost, ["asg",T,P] for one assigned; the listener's items of calls
// between polls come with the next poll, and a failed poll's answer
// carries the items it had. A poll hands out at most max records: those
// past it are sought back to, so the position is after the last record
// handed out. With interceptor.classes=KafkachaosWorker$CommitWatch every
// commit the client proves (the broker stored all its offsets: automatic
// ones, and the close's) is written as {"auto-commit":[[T,P,O],...]}.
//
// Transactional queue (arg kafkachaos.role=txn-queue; configs prefixed
// producer. and consumer.; one request at a time, answered as the
// consumer's are):
//
//   {"op":"init","id":N,"budget-ms":B}                      initTransactions
//   {"op":"assign","id":N,"partitions":"t:0,t:1"}          assign, from the beginning
//   {"op":"txn","id":N,"plan":"s:T:P:V,p,...","max":M,"wait-ms":W,"pauses":"MS,...","budget-ms":B}
//        -> {"id":N,"items":[...]}
//   {"op":"commit","id":N,"budget-ms":B}                    commitTransaction
//   {"op":"abort","id":N,"budget-ms":B}                     abortTransaction if one may be open, then seek back
//   {"op":"close","timeout-ms":MS}                          close, then {"closed":true} and exit 0
//
// A txn begins a transaction and makes its mops in order: s sends value V
// to partition P of topic T, p polls up to M records waiting at most W ms
// (what the consumer has, or the first to arrive, as KafkaConsumer.poll
// does); before each mop after the first, and before answering, it sleeps
// the next of pauses (none when empty). It waits for its sends' results,
// at most B ms. Its items are ["sent",I,OFFSET] for mop I's send, and
// ["poll",I] followed by mop I's records ["rec",T,P,OFFSET,VALUE]. It stops
// at the first exception, answered with the items it has. The calls that
// block (init, commit, abort) are retried after a TimeoutException while B
// lasts, as the Java client allows. After an abort the consumer seeks back
// to the first offset each partition's polls read in the transaction.
//
// Transactional copier (arg kafkachaos.role=copier; configs prefixed
// producer. and consumer., the consumer's with a group.id, read_committed
// and no automatic commit; one request at a time, answered as the
// consumer's are):
//
//   {"op":"init","id":N,"budget-ms":B}                      initTransactions
//   {"op":"subscribe","id":N,"topics":"a,b"}               subscribe, with the consumer's rebalance listener
//   {"op":"assign","id":N,"partitions":"t:0,t:1","timeout-ms":T}
//        assign, each partition at the group's committed offset, else its beginning
//   {"op":"poll","id":N,"max":M,"wait-ms":W}               the consumer's poll: rec, rev and asg items
//   {"op":"txn","id":N,"sends":"T:P:V,...","offsets":"T:P:O,...","budget-ms":B}
//        -> {"id":N,"items":[["sent",I,OFFSET],...]}
//   {"op":"commit","id":N,"budget-ms":B}                    commitTransaction
//   {"op":"abort","id":N,"budget-ms":B}                     abortTransaction if one may be open
//   {"op":"rewind","id":N,"timeout-ms":T}                   seek each assigned partition to the group's
//                                                           committed offset, else its beginning
//   {"op":"close","timeout-ms":MS}                          close, then {"closed":true} and exit 0
//
// A txn begins a transaction, sends each value V to partition P of topic
// T, waits for the sends' results at most B ms (item ["sent",I,OFFSET] for
// the I-th send), then adds the offsets (the next to read, per input
// partition) to the transaction with the consumer's group metadata, so a
// member of a stale generation is refused. It stops at the first
// exception, answered with the items it has. init, commit and abort are
// retried after a TimeoutException while B lasts, as the txn queue's are.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class KafkachaosWorker {
    private static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    // inSend is true while the reading thread is inside send().
    private static volatile boolean inSend;
    private static Thread reader;

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        String role = "producer";
        for (String a : args) {
            int eq = a.indexOf('=');
            if (a.startsWith("kafkachaos.role=")) {
                role = a.substring(eq + 1);
            } else if (eq > 0 && !a.startsWith("owner=")) {
                props.put(a.substring(0, eq), a.substring(eq + 1));
            }
        }
        if ("consumer".equals(role)) {
            Consumer.run(props);
            return;
        }
        if ("txn-queue".equals(role)) {
            runTransactional(props, (producer, reader) -> new TxnQueue(producer, reader)::serve);
            return;
        }
        if ("copier".equals(role)) {
            runTransactional(props, (producer, reader) -> new Copier(producer, reader)::serve);
            return;
        }
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        KafkaProducer<byte[], byte[]> producer;
        try {
            producer = new KafkaProducer<>(props);
        } catch (Throwable t) {
            fatal(t);
            return;
        }
        reader = Thread.currentThread();
        emit("{\"ready\":true}");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        long closeMs = 0;
        while ((line = in.readLine()) != null) {
            Map<String, String> req = Json.object(line);
            String op = req.get("op");
            if ("close".equals(op)) {
                closeMs = Long.parseLong(req.getOrDefault("timeout-ms", "0"));
                break;
            }
            if ("send".equals(op)) {
                send(producer, req);
            }
        }
        producer.close(Duration.ofMillis(closeMs));
        emit("{\"closed\":true}");
        System.exit(0);
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, Map<String, String> req) {
        long id = Long.parseLong(req.get("id"));
        ProducerRecord<byte[], byte[]> rec = new ProducerRecord<>(req.get("topic"),
                Integer.valueOf(req.get("partition")), null, req.get("value").getBytes(StandardCharsets.UTF_8));
        inSend = true;
        try {
            producer.send(rec, (md, e) -> {
                if (e == null) {
                    emit("{\"id\":" + id + ",\"offset\":" + md.offset() + "}");
                } else {
                    fail(id, e, inSend && Thread.currentThread() == reader);
                }
            });
        } catch (Throwable e) {
            fail(id, e, true);
        } finally {
            inSend = false;
        }
    }

    // serveUntilClose says ready, then serves each request line until a
    // close (or the end of stdin), and returns the close's timeout in ms.
    private static long serveUntilClose(java.util.function.Consumer<Map<String, String>> serve) throws Exception {
        emit("{\"ready\":true}");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            Map<String, String> req = Json.object(line);
            if ("close".equals(req.get("op"))) {
                return Long.parseLong(req.getOrDefault("timeout-ms", "0"));
            }
            serve.accept(req);
        }
        return 0;
    }

    private static void fatal(Throwable t) {
        Throwable c = t.getCause() != null ? t.getCause() : t;
        emit("{\"fatal\":" + str(c.getClass().getName()) + ",\"message\":" + str(t.getMessage() + ": " + c.getMessage()) + "}");
        System.exit(1);
    }

    private static void fail(long id, Throwable e, boolean beforeAppend) {
        emit("{\"id\":" + id + ",\"error\":" + str(e.getClass().getName()) + ",\"message\":" + str(String.valueOf(e.getMessage()))
                + ",\"before-append\":" + beforeAppend + "}");
    }

    // Consumer runs the consumer role: one KafkaConsumer, used from the
    // reading thread only (it is not thread-safe), one request at a time.
    static final class Consumer implements ConsumerRebalanceListener {
        // items are the current answer's poll items; the listener runs
        // inside the consumer's calls, on the reading thread.
        private final List<String> items = new ArrayList<>();
        private final KafkaConsumer<byte[], byte[]> consumer;

        private Consumer(KafkaConsumer<byte[], byte[]> consumer) {
            this.consumer = consumer;
        }

        static void run(Properties props) throws Exception {
            props.put("key.deserializer", ByteArrayDeserializer.class.getName());
            props.put("value.deserializer", ByteArrayDeserializer.class.getName());
            Consumer c;
            try {
                c = new Consumer(new KafkaConsumer<>(props));
            } catch (Throwable t) {
                fatal(t);
                return;
            }
            long closeMs = serveUntilClose(c::serve);
            c.consumer.close(Duration.ofMillis(closeMs));
            emit("{\"closed\":true}");
            System.exit(0);
        }

        private void serve(Map<String, String> req) {
            long id = Long.parseLong(req.get("id"));
            try {
                emit("{\"id\":" + id + answer(req) + "}");
            } catch (Throwable e) {
                emit("{\"id\":" + id + ",\"error\":" + str(e.getClass().getName()) + ",\"message\":" + str(String.valueOf(e.getMessage()))
                        + takeItems() + "}");
            }
        }

        // answer runs one request and returns its answer's fields after the id.
        private String answer(Map<String, String> req) {
            String op = req.get("op");
            Duration timeout = Duration.ofMillis(Long.parseLong(req.getOrDefault("timeout-ms", "0")));
            switch (op) {
                case "subscribe":
                    consumer.subscribe(Arrays.asList(req.get("topics").split(",")), this);
                    return "";
                case "assign":
                    List<TopicPartition> tps = new ArrayList<>(offsets(req.get("partitions")).keySet());
                    consumer.assign(tps);
                    consumer.seekToBeginning(tps);
                    return "";
                case "poll":
                    poll(Integer.parseInt(req.get("max")), Long.parseLong(req.get("wait-ms")), false);
                    return takeItems();
                case "commit":
                    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
                    offsets(req.get("offsets")).forEach((tp, off) -> commit.put(tp, new OffsetAndMetadata(off)));
                    consumer.commitSync(commit, timeout);
                    return "";
                case "committed":
                    return ",\"offsets\":" + offsetList(consumer.committed(offsets(req.get("partitions")).keySet(), timeout));
                case "seek":
                    offsets(req.get("offsets")).forEach(consumer::seek);
                    return "";
                default:
                    throw new IllegalArgumentException("unknown op " + op);
            }
        }

        // poll hands out up to max records within wait ms; with firstOnly,
        // as KafkaConsumer.poll does, the first that arrive, not waiting
        // for more once it has some.
        private void poll(int max, long waitMs, boolean firstOnly) {
            long deadline = System.nanoTime() + waitMs * 1_000_000L;
            int n = 0;
            while (n < max && !(firstOnly && n > 0)) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    break;
                }
                ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(Math.min(left, 50)));
                Map<TopicPartition, Long> back = new LinkedHashMap<>();
                for (ConsumerRecord<byte[], byte[]> r : recs) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (n >= max || back.containsKey(tp)) {
                        back.putIfAbsent(tp, r.offset());
                        continue;
                    }
                    String v = r.value() == null ? "" : new String(r.value(), StandardCharsets.UTF_8);
                    items.add("[\"rec\"," + str(r.topic()) + "," + r.partition() + "," + r.offset() + "," + str(v) + "]");
                    n++;
                }
                back.forEach(consumer::seek);
            }
        }

        private String takeItems() {
            String out = ",\"items\":[" + String.join(",", items) + "]";
            items.clear();
            return out;
        }

        private void note(String what, Collection<TopicPartition> tps) {
            for (TopicPartition tp : tps) {
                items.add("[\"" + what + "\"," + str(tp.topic()) + "," + tp.partition() + "]");
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> tps) {
            note("rev", tps);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> tps) {
            note("rev", tps);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> tps) {
            note("asg", tps);
        }

        // offsets reads "t:p:o,..." (or "t:p,...", offsets 0) in order.
        private static Map<TopicPartition, Long> offsets(String s) {
            Map<TopicPartition, Long> out = new LinkedHashMap<>();
            for (String one : s.split(",")) {
                String[] f = one.split(":");
                if (f.length < 2 || one.isEmpty()) {
                    throw new IllegalArgumentException("want topic:partition[:offset], got " + one);
                }
                // a topic has no ':' (Kafka's legal characters), so the
                // fields split cleanly
                out.put(new TopicPartition(f[0], Integer.parseInt(f[1])), f.length > 2 ? Long.parseLong(f[2]) : 0L);
            }
            return out;
        }
    }

    // TxnQueue runs the txn-queue role: a transactional producer and a
    // read_committed consumer assigned its partitions, no group, used from
    // the reading thread only, one request at a time.
    static final class TxnQueue extends Transactional {
        // first is the first offset the open transaction's polls read,
        // per partition: where an abort seeks back to.
        private final Map<TopicPartition, Long> first = new HashMap<>();

        private TxnQueue(KafkaProducer<byte[], byte[]> producer, Consumer reader) {
            super(producer, reader);
        }

        private void serve(Map<String, String> req) {
            long id = Long.parseLong(req.get("id"));
            long budgetMs = Long.parseLong(req.getOrDefault("budget-ms", "0"));
            List<String> items = new ArrayList<>();
            try {
                switch (req.get("op")) {
                    case "init":
                        retried(budgetMs, producer::initTransactions);
                        break;
                    case "assign":
                        List<TopicPartition> tps = new ArrayList<>(Consumer.offsets(req.get("partitions")).keySet());
                        reader.consumer.assign(tps);
                        reader.consumer.seekToBeginning(tps);
                        break;
                    case "txn":
                        txn(req, budgetMs, items);
                        break;
                    case "commit":
                        commit(budgetMs);
                        first.clear();
                        break;
                    case "abort":
                        abortIfOpen(budgetMs);
                        first.forEach(reader.consumer::seek);
                        first.clear();
                        break;
                    default:
                        throw new IllegalArgumentException("unknown op " + req.get("op"));
                }
                emit("{\"id\":" + id + ",\"items\":[" + String.join(",", items) + "]}");
            } catch (Throwable e) {
                emit("{\"id\":" + id + ",\"error\":" + str(e.getClass().getName()) + ",\"message\":"
                        + str(String.valueOf(e.getMessage())) + ",\"items\":[" + String.join(",", items) + "]}");
            }
        }

        // txn begins a transaction and makes its mops (see the top).
        private void txn(Map<String, String> req, long budgetMs, List<String> items) throws Exception {
            String[] plan = req.get("plan").split(",");
            String p = req.getOrDefault("pauses", "");
            String[] pauses = p.isEmpty() ? new String[0] : p.split(",");
            int max = Integer.parseInt(req.get("max"));
            long waitMs = Long.parseLong(req.get("wait-ms"));
            first.clear();
            // Open from here on for the abort that follows a failure: a
            // producer in an error state refuses beginTransaction, and its
            // abortTransaction then says whether it can go on.
            open = true;
            producer.beginTransaction();
            Map<Integer, Future<RecordMetadata>> sent = new LinkedHashMap<>();
            for (int i = 0; i < plan.length; i++) {
                if (i > 0 && pauses.length > 0) {
                    Thread.sleep(Long.parseLong(pauses[i - 1]));
                }
                String[] f = plan[i].split(":");
                if ("s".equals(f[0])) {
                    sent.put(i, producer.send(new ProducerRecord<>(f[1], Integer.valueOf(f[2]), null, f[3].getBytes(StandardCharsets.UTF_8))));
                    continue;
                }
                items.add("[\"poll\"," + i + "]");
                try {
                    reader.poll(max, waitMs, true);
                } finally {
                    // the records handed out before an exception, too
                    for (String it : reader.items) {
                        items.add(it);
                        if (it.startsWith("[\"rec\"")) {
                            noteFirst(it);
                        }
                    }
                    reader.items.clear();
                }
            }
            long deadline = System.nanoTime() + budgetMs * 1_000_000L;
            for (Map.Entry<Integer, Future<RecordMetadata>> e : sent.entrySet()) {
                try {
                    long offset = e.getValue().get(Math.max(deadline - System.nanoTime(), 0), TimeUnit.NANOSECONDS).offset();
                    items.add("[\"sent\"," + e.getKey() + "," + offset + "]");
                } catch (ExecutionException x) {
                    throw x.getCause() instanceof Exception ? (Exception) x.getCause() : x;
                }
            }
            if (pauses.length > 0) {
                Thread.sleep(Long.parseLong(pauses[pauses.length - 1]));
            }
        }

        // noteFirst keeps the offset of a record item ["rec",T,P,O,V] as
        // its partition's first of the transaction, unless it has one.
        private void noteFirst(String item) {
            // a topic name has no ',' or '"' (Kafka's legal characters)
            String[] f = item.substring(1, item.length() - 1).split(",", 5);
            String topic = f[1].substring(1, f[1].length() - 1);
            first.putIfAbsent(new TopicPartition(topic, Integer.parseInt(f[2])), Long.parseLong(f[3]));
        }

    }

    // retried runs call again after each TimeoutException while budget ms
    // last, backing off between attempts.
    private static void retried(long budgetMs, Runnable call) throws InterruptedException {
        long deadline = System.nanoTime() + budgetMs * 1_000_000L;
        long backoff = 50;
        while (true) {
            try {
                call.run();
                return;
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                if (System.nanoTime() + backoff * 1_000_000L > deadline) {
                    throw e;
                }
                Thread.sleep(backoff);
                backoff = Math.min(2 * backoff, 1000);
            }
        }
    }

    // Transactional is what the txn queue and the copier hold: a
    // transactional producer and a read_committed consumer, used from the
    // reading thread only, and whether a transaction may be open.
    abstract static class Transactional {
        final KafkaProducer<byte[], byte[]> producer;
        final Consumer reader;
        boolean open;

        Transactional(KafkaProducer<byte[], byte[]> producer, Consumer reader) {
            this.producer = producer;
            this.reader = reader;
        }

        // commit commits the open transaction, retried within budgetMs.
        void commit(long budgetMs) throws InterruptedException {
            retried(budgetMs, producer::commitTransaction);
            open = false;
        }

        // abortIfOpen aborts the transaction if one may be open, retried
        // within budgetMs.
        void abortIfOpen(long budgetMs) throws InterruptedException {
            if (open) {
                retried(budgetMs, producer::abortTransaction);
                open = false;
            }
        }
    }

    // runTransactional makes a transactional worker's producer and consumer
    // from the producer. and consumer. configs of all, serves each request
    // with what worker makes of them until a close, then closes both.
    private static void runTransactional(Properties all,
            java.util.function.BiFunction<KafkaProducer<byte[], byte[]>, Consumer, java.util.function.Consumer<Map<String, String>>> worker)
            throws Exception {
        KafkaProducer<byte[], byte[]> producer;
        Consumer reader;
        try {
            producer = new KafkaProducer<>(prefixed(all, "producer."));
            reader = new Consumer(new KafkaConsumer<>(prefixed(all, "consumer.")));
        } catch (Throwable t) {
            fatal(t);
            return;
        }
        long closeMs = serveUntilClose(worker.apply(producer, reader));
        reader.consumer.close(Duration.ofMillis(closeMs));
        producer.close(Duration.ofMillis(closeMs));
        emit("{\"closed\":true}");
        System.exit(0);
    }

    // prefixed is the configs of all under prefix (producer. or
    // consumer.), without it, with the byte-array serializers or
    // deserializers that client needs.
    private static Properties prefixed(Properties all, String prefix) {
        Properties out = new Properties();
        all.forEach((k, v) -> {
            String key = (String) k;
            if (key.startsWith(prefix)) {
                out.put(key.substring(prefix.length()), v);
            }
        });
        if ("producer.".equals(prefix)) {
            out.put("key.serializer", ByteArraySerializer.class.getName());
            out.put("value.serializer", ByteArraySerializer.class.getName());
        } else {
            out.put("key.deserializer", ByteArrayDeserializer.class.getName());
            out.put("value.deserializer", ByteArrayDeserializer.class.getName());
        }
        return out;
    }

    // Copier runs the copier role: a transactional producer and a
    // read_committed group consumer (the consumer role's, listener and
    // poll included), used from the reading thread only, one request at a
    // time.
    static final class Copier extends Transactional {
        private Copier(KafkaProducer<byte[], byte[]> producer, Consumer reader) {
            super(producer, reader);
        }

        private void serve(Map<String, String> req) {
            long id = Long.parseLong(req.get("id"));
            List<String> items = new ArrayList<>();
            try {
                answer(req, items);
                items.addAll(reader.items);
                reader.items.clear();
                emit("{\"id\":" + id + ",\"items\":[" + String.join(",", items) + "]}");
            } catch (Throwable e) {
                items.addAll(reader.items);
                reader.items.clear();
                emit("{\"id\":" + id + ",\"error\":" + str(e.getClass().getName()) + ",\"message\":"
                        + str(String.valueOf(e.getMessage())) + ",\"items\":[" + String.join(",", items) + "]}");
            }
        }

        private void answer(Map<String, String> req, List<String> items) throws Exception {
            long budgetMs = Long.parseLong(req.getOrDefault("budget-ms", "0"));
            Duration timeout = Duration.ofMillis(Long.parseLong(req.getOrDefault("timeout-ms", "0")));
            KafkaConsumer<byte[], byte[]> consumer = reader.consumer;
            switch (req.get("op")) {
                case "init":
                    retried(budgetMs, producer::initTransactions);
                    break;
                case "subscribe":
                    consumer.subscribe(Arrays.asList(req.get("topics").split(",")), reader);
                    break;
                case "assign":
                    List<TopicPartition> tps = new ArrayList<>(Consumer.offsets(req.get("partitions")).keySet());
                    consumer.assign(tps);
                    seekCommitted(tps, timeout);
                    break;
                case "poll":
                    reader.poll(Integer.parseInt(req.get("max")), Long.parseLong(req.get("wait-ms")), false);
                    break;
                case "txn":
                    txn(req, budgetMs, items);
                    break;
                case "commit":
                    commit(budgetMs);
                    break;
                case "abort":
                    abortIfOpen(budgetMs);
                    break;
                case "rewind":
                    seekCommitted(consumer.assignment(), timeout);
                    break;
                default:
                    throw new IllegalArgumentException("unknown op " + req.get("op"));
            }
        }

        // txn begins a transaction, makes its sends, waits for their
        // results and adds the offsets to it (see the top).
        private void txn(Map<String, String> req, long budgetMs, List<String> items) throws Exception {
            // Open from here on for the abort that follows a failure, as
            // the txn queue's.
            open = true;
            producer.beginTransaction();
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (String one : req.get("sends").split(",")) {
                String[] f = one.split(":");
                sent.add(producer.send(new ProducerRecord<>(f[0], Integer.valueOf(f[1]), null, f[2].getBytes(StandardCharsets.UTF_8))));
            }
            long deadline = System.nanoTime() + budgetMs * 1_000_000L;
            for (int i = 0; i < sent.size(); i++) {
                try {
                    long offset = sent.get(i).get(Math.max(deadline - System.nanoTime(), 0), TimeUnit.NANOSECONDS).offset();
                    items.add("[\"sent\"," + i + "," + offset + "]");
                } catch (ExecutionException x) {
                    throw x.getCause() instanceof Exception ? (Exception) x.getCause() : x;
                }
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            Consumer.offsets(req.get("offsets")).forEach((tp, off) -> offsets.put(tp, new OffsetAndMetadata(off)));
            producer.sendOffsetsToTransaction(offsets, reader.consumer.groupMetadata());
        }

        // seekCommitted seeks each of tps to the group's committed offset,
        // its beginning where there is none.
        private void seekCommitted(Collection<TopicPartition> tps, Duration timeout) {
            if (tps.isEmpty()) {
                return;
            }
            Map<TopicPartition, OffsetAndMetadata> committed = reader.consumer.committed(new java.util.HashSet<>(tps), timeout);
            List<TopicPartition> none = new ArrayList<>();
            for (TopicPartition tp : tps) {
                OffsetAndMetadata om = committed.get(tp);
                if (om == null) {
                    none.add(tp);
                } else {
                    reader.consumer.seek(tp, om.offset());
                }
            }
            // seekToBeginning of no partition seeks every assigned one
            if (!none.isEmpty()) {
                reader.consumer.seekToBeginning(none);
            }
        }
    }

    // offsetList writes offsets as [[T,P,O],...], leaving out partitions
    // without one.
    static String offsetList(Map<TopicPartition, OffsetAndMetadata> m) {
        List<String> out = new ArrayList<>();
        m.forEach((tp, om) -> {
            if (om != null) {
                out.add("[" + str(tp.topic()) + "," + tp.partition() + "," + om.offset() + "]");
            }
        });
        return "[" + String.join(",", out) + "]";
    }

    // CommitWatch reports every commit the consumer proves: the client
    // calls onCommit only once the broker stored all of its offsets.
    public static final class CommitWatch implements ConsumerInterceptor<byte[], byte[]> {
        @Override
        public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
            return records;
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
            emit("{\"auto-commit\":" + offsetList(offsets) + "}");
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }

    private static synchronized void emit(String line) {
        OUT.print(line);
        OUT.print('\n');
        OUT.flush();
    }

    private static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.append('"').toString();
    }

    // Json reads the flat objects the harness writes: string and number
    // values, no nesting.
    static final class Json {
        static Map<String, String> object(String s) {
            Map<String, String> out = new HashMap<>();
            int[] i = {skip(s, 0)};
            expect(s, i, '{');
            while (true) {
                i[0] = skip(s, i[0]);
                if (s.charAt(i[0]) == '}') {
                    return out;
                }
                String key = string(s, i);
                i[0] = skip(s, i[0]);
                expect(s, i, ':');
                i[0] = skip(s, i[0]);
                out.put(key, s.charAt(i[0]) == '"' ? string(s, i) : scalar(s, i));
                i[0] = skip(s, i[0]);
                if (s.charAt(i[0]) == ',') {
                    i[0]++;
                }
            }
        }

        private static int skip(String s, int i) {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i >= s.length()) {
                throw new IllegalArgumentException("truncated JSON line: " + s);
            }
            return i;
        }

        private static void expect(String s, int[] i, char c) {
            if (s.charAt(i[0]) != c) {
                throw new IllegalArgumentException("want '" + c + "' at " + i[0] + " of " + s);
            }
            i[0]++;
        }

        private static String scalar(String s, int[] i) {
            int start = i[0];
            while (i[0] < s.length() && ",}".indexOf(s.charAt(i[0])) < 0 && !Character.isWhitespace(s.charAt(i[0]))) {
                i[0]++;
            }
            return s.substring(start, i[0]);
        }

        private static String string(String s, int[] i) {
            expect(s, i, '"');
            StringBuilder b = new StringBuilder();
            while (s.charAt(i[0]) != '"') {
                char c = s.charAt(i[0]++);
                if (c == '\\') {
                    char e = s.charAt(i[0]++);
                    switch (e) {
                        case 'n': b.append('\n'); break;
                        case 't': b.append('\t'); break;
                        case 'r': b.append('\r'); break;
                        case 'b': b.append('\b'); break;
                        case 'f': b.append('\f'); break;
                        case 'u': b.append((char) Integer.parseInt(s.substring(i[0], i[0] + 4), 16)); i[0] += 4; break;
                        default: b.append(e);
                    }
                } else {
                    b.append(c);
                }
            }
            i[0]++;
            return b.toString();
        }
    }
}
