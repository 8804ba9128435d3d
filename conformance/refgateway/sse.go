package refgateway

import (
	"encoding/json"
	"net/http"
)

// sseWriter writes one text/event-stream response. It flushes after every
// event, waits the configured event latency between events, stops when the
// client goes away, and applies the stream-cut fault.
type sseWriter struct {
	c       *call
	rc      *http.ResponseController
	sent    int
	cutNext bool // stream-cut: the next cuttable event is written half and ends the stream
	stopped bool
}

// startSSE writes the stream's headers. Under wrong-content-type the stream is
// labelled application/json.
func (c *call) startSSE() *sseWriter {
	ct := "text/event-stream; charset=utf-8"
	if c.fs.has(fWrongContentType) {
		ct = "application/json"
	}
	h := c.w.Header()
	h.Set("Content-Type", ct)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	c.setRequestID(h)
	c.wrote = true
	c.w.WriteHeader(http.StatusOK)
	s := &sseWriter{c: c, rc: http.NewResponseController(c.w), cutNext: c.fs.has(fStreamCut)}
	_ = s.rc.Flush()
	return s
}

// send writes one event (an "event:" line when name is set, then one "data:"
// line). It reports false when the stream must end: client gone, write
// failure, or the stream was cut. A cuttable event is where stream-cut strikes.
func (s *sseWriter) send(name string, v any, cuttable bool) bool {
	if s.stopped {
		return false
	}
	if s.sent > 0 && !s.c.sleep(s.c.g.cfg.Latency.Event) {
		s.stopped = true
		return false
	}
	var data []byte
	switch d := v.(type) {
	case string:
		data = []byte(d)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			s.stopped = true
			return false
		}
		data = b
	}
	var buf []byte
	if name != "" && !(s.c.dialect == dialectAnthropic && s.c.fs.has(fUnnamedEvents)) {
		buf = append(buf, "event: "+name+"\n"...)
	}
	buf = append(buf, "data: "...)
	if cuttable && s.cutNext {
		// Half an event, no terminating blank line, then the stream ends.
		buf = append(buf, data[:len(data)/2]...)
		_, _ = s.c.w.Write(buf)
		_ = s.rc.Flush()
		s.stopped = true
		return false
	}
	buf = append(buf, data...)
	buf = append(buf, "\n\n"...)
	if _, err := s.c.w.Write(buf); err != nil {
		s.stopped = true
		return false
	}
	if err := s.rc.Flush(); err != nil {
		s.stopped = true
		return false
	}
	s.sent++
	return s.c.r.Context().Err() == nil
}
