// KafkachaosWorker runs one Kafka producer (kafka-clients) for kafkachaos:
// it reads requests from stdin and writes answers to stdout, one JSON
// object a line.
//
//   args:     [kafkachaos-worker owner=TAG] key=value ...   producer configs
//   stdout:   {"ready":true}                                once the producer is made
//   stdin:    {"op":"send","id":N,"topic":T,"partition":P,"value":V}
//   stdout:   {"id":N,"offset":O}                           acknowledged (O -1: unknown, acks=0)
//             {"id":N,"error":CLASS,"message":M,"before-append":B}
//   stdin:    {"op":"close","timeout-ms":MS}                close, then {"closed":true} and exit 0
//   stdout:   {"fatal":CLASS,"message":M}                   the producer could not be made; exit 1
//
// before-append is true when the exception came out of send() itself (the
// calling thread, while send() ran): the record never reached the
// accumulator, so nothing of it can have been transmitted. Completions
// from the producer's network thread are false. Which classes make a
// definite failure is decided by the harness, not here.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class KafkachaosWorker {
    private static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    // inSend is true while the reading thread is inside send().
    private static volatile boolean inSend;
    private static Thread reader;

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq > 0 && !a.startsWith("owner=")) {
                props.put(a.substring(0, eq), a.substring(eq + 1));
            }
        }
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        KafkaProducer<byte[], byte[]> producer;
        try {
            producer = new KafkaProducer<>(props);
        } catch (Throwable t) {
            Throwable c = t.getCause() != null ? t.getCause() : t;
            emit("{\"fatal\":" + str(c.getClass().getName()) + ",\"message\":" + str(t.getMessage() + ": " + c.getMessage()) + "}");
            System.exit(1);
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

    private static void fail(long id, Throwable e, boolean beforeAppend) {
        emit("{\"id\":" + id + ",\"error\":" + str(e.getClass().getName()) + ",\"message\":" + str(String.valueOf(e.getMessage()))
                + ",\"before-append\":" + beforeAppend + "}");
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
