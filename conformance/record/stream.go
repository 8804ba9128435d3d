package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/gwconform/gwconform/conformance/results"
)

// The tap's converters: a body becomes what the recording keeps as it
// passes, never whole in memory. Large base64 values (images) go to blobs/
// as they arrive; what stays inline (the JSON around them, event lines,
// text) is held until the round is written, up to the tap's cap.

// blobSink is where a tap's blobs go: the recording's blobs/, or memory
// when nothing is recorded (a run without --record keeps transcripts, which
// name blobs but never hold them).
type blobSink struct {
	dir string // the recording's blobs/; "" keeps blobs in mem

	mu  sync.Mutex
	mem map[string][]byte
}

func newSink(s *Store) *blobSink {
	if s == nil {
		return &blobSink{mem: map[string][]byte{}}
	}
	return &blobSink{dir: filepath.Join(s.dir, BlobsDir)}
}

// temp creates a temporary file beside the blobs (same file system: a
// blob is renamed into place), or in the system's when nothing is recorded.
func (s *blobSink) temp(pattern string) (*os.File, error) {
	return os.CreateTemp(s.dir, pattern)
}

// create starts a blob.
func (s *blobSink) create() (*blobWriter, error) {
	w := &blobWriter{sink: s, h: sha256.New()}
	if s.dir != "" {
		f, err := s.temp(".blob-*")
		if err != nil {
			return nil, err
		}
		w.f = f
	}
	return w, nil
}

// open reads a blob the sink holds.
func (s *blobSink) open(name string) (io.ReadCloser, error) {
	if s.dir == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		b, ok := s.mem[name]
		if !ok {
			return nil, os.ErrNotExist
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	return os.Open(filepath.Join(s.dir, name))
}

// blobWriter writes one blob as its bytes arrive; it is named by its
// content once they all have.
type blobWriter struct {
	sink *blobSink
	f    *os.File     // the temporary file, in a recording
	buf  bytes.Buffer // the bytes, in memory
	h    hash.Hash
	head []byte // the first bytes, which name its kind
	name string
}

func (w *blobWriter) Write(p []byte) (int, error) {
	if len(w.head) < 12 {
		w.head = append(w.head, p[:min(len(p), 12-len(w.head))]...)
	}
	w.h.Write(p)
	if w.f == nil {
		return w.buf.Write(p)
	}
	return w.f.Write(p)
}

// done names the blob by its content, the SHA-256 of its bytes and their
// kind: the same image in a hundred exchanges is one file, and its name is
// the sha256 the results carry for it. commit puts it in place.
func (w *blobWriter) done() string {
	w.name = hex.EncodeToString(w.h.Sum(nil)) + "." + sniffExt(w.head)
	return w.name
}

// commit puts a done blob in place. It runs when the round is written,
// beside the client's exchange: syncing a file can take a while, and a
// stream must not wait on it. A blob already there is the same bytes.
func (w *blobWriter) commit() error {
	if w.f == nil {
		w.sink.mu.Lock()
		w.sink.mem[w.name] = w.buf.Bytes()
		w.sink.mu.Unlock()
		return nil
	}
	path := filepath.Join(w.sink.dir, w.name)
	if _, err := os.Stat(path); err == nil {
		w.abort()
		return nil
	}
	return results.Place(w.f, path, true)
}

// abort drops the blob.
func (w *blobWriter) abort() {
	if w.f != nil {
		w.f.Close()
		os.Remove(w.f.Name())
	}
}

// written reads back what was written, for a value that turned out not to
// be a blob.
func (w *blobWriter) written() (io.Reader, error) {
	if w.f == nil {
		return bytes.NewReader(w.buf.Bytes()), nil
	}
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return w.f, nil
}

const dataMark = ";base64,"

// extractor is extractBlobs as the bytes pass: every large base64 value —
// a JSON string that is nothing but standard base64, or the data of a
// "data:...;base64," URL in one — is decoded into a blob as it arrives,
// and the text keeps a reference to it. Only a value that decodes
// strictly (encoded again, its bytes give the very same text) becomes a
// blob, so that a replay restores it byte for byte; any other keeps its
// text, read back from what was decoded so far.
type extractor struct {
	sink *blobSink
	out  bytes.Buffer // the text, references in place of blobs
	err  error
	done []*blobWriter // the blobs named, committed by finish

	in   bool   // within a value that may be a blob
	n    int    // its characters so far, padding included
	pad  int    // its padding characters
	head []byte // its characters not yet decoded: all of them until there are minBlobChars
	blob *blobWriter
	dec  []byte
}

func newExtractor(sink *blobSink) *extractor { return &extractor{sink: sink} }

func (e *extractor) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if !e.in {
			k := bytes.IndexAny(p, `",`)
			if k < 0 {
				e.out.Write(p)
				break
			}
			e.out.Write(p[:k+1])
			p = p[k+1:]
			if e.out.Bytes()[e.out.Len()-1] == '"' || bytes.HasSuffix(e.out.Bytes(), []byte(dataMark)) {
				e.in, e.n, e.pad, e.head, e.blob = true, 0, 0, e.head[:0], nil
			}
			continue
		}
		if e.pad == 0 {
			k := 0
			for k < len(p) && isBase64Char(p[k]) {
				k++
			}
			e.chars(p[:k])
			if p = p[k:]; len(p) == 0 {
				break
			}
		}
		switch c := p[0]; {
		case c == '=' && e.pad < 2:
			e.pad, e.n, e.head = e.pad+1, e.n+1, append(e.head, c)
			p = p[1:]
		case c == '"' && e.end():
			e.out.WriteByte(c)
			p = p[1:]
		default: // not a blob: its text stays, and c is read afresh
			e.keep()
		}
	}
	return n, nil
}

// chars takes more characters of a value; past minBlobChars, its whole
// quanta are decoded into a blob as they come.
func (e *extractor) chars(b []byte) {
	e.n += len(b)
	e.head = append(e.head, b...)
	if e.blob == nil {
		if len(e.head) < minBlobChars || e.err != nil {
			return
		}
		if e.blob, e.err = e.sink.create(); e.err != nil {
			return
		}
	}
	q := len(e.head) / 4 * 4
	if q == 0 {
		return
	}
	if cap(e.dec) < q/4*3 {
		e.dec = make([]byte, q/4*3)
	}
	d, _ := base64.StdEncoding.Decode(e.dec[:q/4*3], e.head[:q]) // whole quanta of the alphabet, no padding: always valid
	if _, err := e.blob.Write(e.dec[:d]); err != nil && e.err == nil {
		e.err = err
	}
	e.head = append(e.head[:0], e.head[q:]...)
}

// end ends a value at its closing quote: true when it is a blob, its
// reference then written.
func (e *extractor) end() bool {
	if e.n < minBlobChars || e.err != nil {
		return false
	}
	if e.blob == nil { // padding made it long enough: at most minBlobChars, decoded at once
		raw, err := base64.StdEncoding.Strict().DecodeString(string(e.head))
		if err != nil {
			return false
		}
		if e.blob, e.err = e.sink.create(); e.err != nil {
			return false
		}
		e.blob.Write(raw)
	} else {
		switch len(e.head) {
		case 0:
		case 4:
			raw, err := base64.StdEncoding.Strict().DecodeString(string(e.head))
			if err != nil {
				return false
			}
			e.blob.Write(raw)
		default:
			return false
		}
	}
	e.out.WriteString(blobPrefix + e.blob.done())
	e.done = append(e.done, e.blob)
	e.in, e.blob = false, nil
	return true
}

// keep ends a value that is not a blob: its text stays.
func (e *extractor) keep() {
	if e.blob != nil {
		// What was decoded is the value's whole quanta: encoded again, it
		// is their very text.
		r, err := e.blob.written()
		if err == nil {
			enc := base64.NewEncoder(base64.StdEncoding, &e.out)
			_, err = io.Copy(enc, r)
			enc.Close()
		}
		if err != nil && e.err == nil {
			e.err = err
		}
		e.blob.abort()
	}
	e.out.Write(e.head)
	e.in, e.blob = false, nil
}

// finish returns the text and puts the blobs in place. The text of a value
// still open at the end stays (an unterminated string), unless the body
// was cut at the cap: then it is dropped, as all that follows it.
func (e *extractor) finish(cut bool) ([]byte, error) {
	if e.in {
		if cut {
			if e.blob != nil {
				e.blob.abort()
			}
			e.in, e.blob = false, nil
		} else {
			e.keep()
		}
	}
	for _, b := range e.done {
		if err := b.commit(); err != nil && e.err == nil {
			e.err = err
		}
	}
	e.done = nil
	return e.out.Bytes(), e.err
}

// writeRestored writes s with every blob reference replaced by its base64,
// read from sink as it is written: the text the skeleton was made of. A
// reference to no blob stays (it was the text itself).
func writeRestored(w io.Writer, s []byte, sink *blobSink) error {
	last := 0
	for _, m := range blobRefRE.FindAllIndex(s, -1) {
		r, err := sink.open(string(s[m[0]+len(blobPrefix) : m[1]]))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		w.Write(s[last:m[0]])
		enc := base64.NewEncoder(base64.StdEncoding, w)
		_, err = io.Copy(enc, r)
		r.Close()
		enc.Close()
		if err != nil {
			return err
		}
		last = m[1]
	}
	_, err := w.Write(s[last:])
	return err
}

// redactWriter replaces exact secrets in bytes as they pass (redactor.bytes
// of the whole), holding back the last bytes that could start one.
type redactWriter struct {
	w    io.Writer
	red  redactor
	keep int
	hold []byte
}

func newRedactWriter(w io.Writer, red redactor) *redactWriter {
	r := &redactWriter{w: w, red: red}
	for _, s := range red {
		r.keep = max(r.keep, len(s)-1)
	}
	return r
}

func (r *redactWriter) Write(p []byte) (int, error) {
	r.hold = r.red.bytes(append(r.hold, p...))
	if n := len(r.hold) - r.keep; n > 0 {
		if _, err := r.w.Write(r.hold[:n]); err != nil {
			return 0, err
		}
		r.hold = append(r.hold[:0], r.hold[n:]...)
	}
	return len(p), nil
}

func (r *redactWriter) flush() error {
	_, err := r.w.Write(r.hold)
	r.hold = nil
	return err
}

// spoolMem is how much of a request body a spool keeps in memory; the
// rest of a larger one (an edit's images) waits in a file.
const spoolMem = 64 << 10

// spool keeps a request body between the client and the gateway: the tap
// reads it whole before sending (so that what is recorded is what was
// sent, even when the gateway answers before reading it), in memory when
// small, else in a temporary file beside the blobs.
type spool struct {
	mem []byte
	f   *os.File
	n   int64
}

func newSpool(r io.Reader, sink *blobSink) (*spool, error) {
	s := &spool{}
	mem, err := io.ReadAll(io.LimitReader(r, spoolMem+1))
	if err != nil {
		return nil, err
	}
	s.mem, s.n = mem, int64(len(mem))
	if len(mem) <= spoolMem {
		return s, nil
	}
	if s.f, err = sink.temp(".spool-*"); err != nil {
		return nil, err
	}
	s.mem = nil
	if _, err := s.f.Write(mem); err != nil {
		s.close()
		return nil, err
	}
	n, err := io.Copy(s.f, r)
	s.n += n
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *spool) size() int64 {
	if s == nil {
		return 0
	}
	return s.n
}

// reader reads the first n bytes; readers are independent of each other.
func (s *spool) reader(n int64) io.Reader {
	n = min(n, s.n)
	if s.f == nil {
		return bytes.NewReader(s.mem[:n])
	}
	return io.NewSectionReader(s.f, 0, n)
}

// attach makes the spool the body of req, which may send it again.
func (s *spool) attach(req *http.Request) {
	if s.size() == 0 {
		req.Body, req.GetBody = http.NoBody, nil
		return
	}
	req.Body = io.NopCloser(s.reader(s.n))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(s.reader(s.n)), nil }
}

func (s *spool) close() {
	if s != nil && s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
	}
}
