package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// requestBody converts a spooled request body for the file, reading it as
// a stream: the Body (makeBody's form), and the model and digest KeyOf
// gives the whole body, so that a replay matches it. Past limit (the
// tap's cap; 0: none) nothing more is read.
func requestBody(ct string, sp *spool, limit int64, red redactor, sink *blobSink) (b *Body, model, digest string, err error) {
	n := sp.size()
	if n == 0 {
		return nil, "", digestBody(ct, nil), nil
	}
	read, cut := n, false
	if limit > 0 && n > limit {
		read, cut = limit, true
	}
	if b, model, digest, ok := formBody(ct, sp.reader(read), cut, red, sink); ok {
		b.Bytes = int(n)
		return b, model, digest, nil
	}
	ex := newExtractor(sink)
	io.Copy(ex, sp.reader(read))
	skel, err := ex.finish(cut)
	if m := gjson.GetBytes(skel, "model"); m.Type == gjson.String {
		model = m.Str
	}
	h := sha256.New()
	if canon, ok := canonicalJSON(skel); ok {
		// The skeleton's canonical form with its blobs put back is the
		// whole body's: a base64 value needs no escaping in JSON.
		h.Write([]byte("json:"))
		if e := writeRestored(h, canon, sink); e != nil && err == nil {
			err = e
		}
	} else {
		h.Write([]byte("raw:"))
		io.Copy(h, sp.reader(read))
	}
	b, e := textBody(skel, n, red, sink)
	if err == nil {
		err = e
	}
	return b, model, "sha256:" + hex.EncodeToString(h.Sum(nil)), err
}

// textBody is makeBody's form of a body that is not multipart, from its
// text with blobs out (skel) and its size: JSON, text, or, when it is not
// UTF-8, base64 of its bytes.
func textBody(skel []byte, size int64, red redactor, sink *blobSink) (*Body, error) {
	b := &Body{Bytes: int(size)}
	// A base64 value is ASCII between quotes: the text is UTF-8 exactly
	// when the body is.
	if !utf8.Valid(skel) {
		var raw bytes.Buffer
		err := writeRestored(&raw, skel, sink)
		b.Base64 = base64.StdEncoding.EncodeToString(red.bytes(raw.Bytes()))
		return b, err
	}
	text := red.text(string(skel))
	var compact bytes.Buffer
	if json.Compact(&compact, []byte(text)) == nil {
		b.JSON = compact.Bytes()
		return b, nil
	}
	b.Text = text
	return b, nil
}

// formBody converts a multipart/form-data body part by part: each
// file part (or a value that is not text) streamed into a blob, redacted;
// each value kept. ok is false when the body is not one (then it is kept
// as text or bytes); a body cut at the cap keeps the parts before the cut.
func formBody(ct string, r io.Reader, cut bool, red redactor, sink *blobSink) (*Body, string, string, bool) {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, "", "", false
	}
	mr := multipart.NewReader(r, params["boundary"])
	b := &Body{}
	var canon []canonPart
	model := ""
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			if cut && len(b.Multipart) > 0 {
				break
			}
			return nil, "", "", false
		}
		part, sum, err := convertPart(p, red, sink)
		if err != nil {
			if cut && len(b.Multipart) > 0 {
				break
			}
			return nil, "", "", false
		}
		if part.Name == "model" && part.Filename == "" && part.Blob == "" && model == "" {
			model = part.Value
		}
		b.Multipart = append(b.Multipart, part)
		canon = append(canon, canonPart{Name: part.Name, Filename: part.Filename, ContentType: part.ContentType, SHA256: sum})
	}
	if b.Multipart == nil {
		b.Multipart = []Part{}
	}
	return b, model, multipartDigest(canon), true
}

// convertPart converts one part, and returns the SHA-256 of its bytes as sent.
func convertPart(p *multipart.Part, red redactor, sink *blobSink) (Part, string, error) {
	part := Part{Name: p.FormName(), Filename: p.FileName(), ContentType: p.Header.Get("Content-Type")}
	sum := sha256.New()
	if part.Filename != "" {
		w, err := sink.create()
		if err != nil {
			return part, "", err
		}
		rw := newRedactWriter(w, red)
		n, err := io.Copy(io.MultiWriter(sum, rw), p)
		if err == nil {
			err = rw.flush()
		}
		if err != nil {
			w.abort()
			return part, "", err
		}
		part.Bytes, part.Blob = int(n), w.done()
		return part, hex.EncodeToString(sum.Sum(nil)), w.commit()
	}
	data, err := io.ReadAll(p)
	if err != nil {
		return part, "", err
	}
	sum.Write(data)
	part.Bytes = len(data)
	if !utf8.Valid(data) {
		w, err := sink.create()
		if err != nil {
			return part, "", err
		}
		w.Write(red.bytes(data))
		part.Blob = w.done()
		return part, hex.EncodeToString(sum.Sum(nil)), w.commit()
	}
	ex := newExtractor(sink)
	ex.Write(data)
	text, err := ex.finish(false)
	part.Value = red.text(string(text))
	return part, hex.EncodeToString(sum.Sum(nil)), err
}

// eventSplitter cuts a stream into events as it arrives (splitEvents's
// rule: at blank lines, a line ending being CRLF, LF or CR), each through
// an extractor of its own, with the time its last byte arrived.
type eventSplitter struct {
	sink   *blobSink
	ex     *extractor // the event being read
	size   int        // its bytes so far
	events []rawEvent
	err    error

	lineEmpty bool // nothing on the current line yet
	lastCR    bool // the last byte was the CR ending a line: an LF now is part of that ending
	crEnd     bool // a CR ended an empty line: the event ends, with an LF if one comes next
	crAt      time.Time
	lastAt    time.Time
}

func newEventSplitter(sink *blobSink) *eventSplitter {
	return &eventSplitter{sink: sink, ex: newExtractor(sink), lineEmpty: true}
}

func (s *eventSplitter) write(p []byte, at time.Time) {
	s.lastAt = at
	start := 0
	feed := func(end int) {
		s.ex.Write(p[start:end])
		s.size += end - start
		start = end
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if s.crEnd {
			s.crEnd = false
			if c == '\n' {
				feed(i + 1)
				s.end(at)
				continue
			}
			feed(i)
			s.end(s.crAt)
		}
		switch c {
		case '\r':
			if s.lineEmpty {
				s.crEnd, s.crAt = true, at
			}
			s.lineEmpty, s.lastCR = true, true
		case '\n':
			switch {
			case s.lastCR:
				s.lastCR = false
			case s.lineEmpty:
				feed(i + 1)
				s.end(at)
			default:
				s.lineEmpty = true
			}
		default:
			s.lineEmpty, s.lastCR = false, false
		}
	}
	feed(len(p))
}

// end closes the event read so far.
func (s *eventSplitter) end(at time.Time) {
	s.finishEvent(at, false)
	s.lineEmpty, s.lastCR = true, false
}

func (s *eventSplitter) finishEvent(at time.Time, cut bool) {
	text, err := s.ex.finish(cut)
	if err != nil && s.err == nil {
		s.err = err
	}
	if len(text) > 0 {
		s.events = append(s.events, rawEvent{text: text, at: at})
	}
	s.ex, s.size = newExtractor(s.sink), 0
}

// finish returns the events: a tail with no blank line (a cut stream) is
// an event of its own.
func (s *eventSplitter) finish(cut bool) ([]rawEvent, error) {
	switch {
	case s.crEnd:
		s.finishEvent(s.crAt, cut)
	case s.size > 0:
		s.finishEvent(s.lastAt, cut)
	}
	return s.events, s.err
}

// rawEvent is one event's text, blobs out, and when its last byte arrived.
type rawEvent struct {
	text []byte
	at   time.Time
}
