package java

import (
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
)

// logLine makes a client log line of one line of the JVM's stderr, which
// slf4j-simple writes as "LEVEL logger - message" (anything else, e.g. a
// JVM crash report, is kept whole at error level).
func logLine(worker, text string) client.LogLine {
	l := client.LogLine{Time: time.Now(), Worker: worker, Level: 3, Client: "java", Message: text}
	level, rest, ok := strings.Cut(text, " ")
	if !ok {
		return l
	}
	logger, msg, ok := strings.Cut(rest, " - ")
	sev, known := map[string]int{"ERROR": 3, "WARN": 4, "INFO": 6, "DEBUG": 7, "TRACE": 7}[level]
	if !ok || !known {
		return l
	}
	l.Level, l.Facility, l.Message = sev, logger[strings.LastIndex(logger, ".")+1:], msg
	return l
}
