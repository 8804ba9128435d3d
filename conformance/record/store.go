package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gwconform/gwconform/conformance/redact"

	"github.com/gwconform/gwconform/conformance/results"
)

// Store is a recording directory.
type Store struct {
	dir string
	// mu serialises the read-modify-write of relay exchange files (two
	// identical requests relayed at once append to one file).
	mu sync.Mutex
}

// Create opens dir for recording, creating it when needed. A directory that
// already holds a recording (a resumed run, a second relay session) is
// continued: its exchanges stay, its Meta keeps its creation time and adds
// the key kinds of m.
func Create(dir string, m Meta) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, BlobsDir), 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, ExchangesDir), 0o755); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	m.Version, m.Created, m.Updated = Version, now, now
	m.BaseURL = redact.BaseURL(m.BaseURL)
	m.KindBaseURLs = redact.BaseURLs(m.KindBaseURLs)
	if old, err := readMeta(dir); err == nil {
		m.Created = old.Created
		for _, k := range old.Keys {
			if !slices.Contains(m.Keys, k) {
				m.Keys = append(m.Keys, k)
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if m.Keys == nil {
		m.Keys = []string{}
	}
	slices.Sort(m.Keys)
	s := &Store{dir: dir}
	if err := s.writeJSON(MetaFile, m); err != nil {
		return nil, err
	}
	return s, nil
}

// Open opens an existing recording and returns its Meta.
func Open(dir string) (*Store, Meta, error) {
	m, err := readMeta(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, Meta{}, fmt.Errorf("%s is not a recording (no %s): record one with gwconform run --record %s", dir, MetaFile, dir)
		}
		return nil, Meta{}, err
	}
	return &Store{dir: dir}, m, nil
}

func readMeta(dir string) (Meta, error) {
	var m Meta
	err := readVersioned(filepath.Join(dir, MetaFile), &m)
	return m, err
}

// readVersioned reads a file of this format: it refuses another version
// and unknown fields, because a misread recording would be judged wrongly.
func readVersioned(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var probe struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if probe.Version != Version {
		return fmt.Errorf("%s: %w", path, versionError(probe.Version))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func versionError(v int) error {
	return fmt.Errorf("recording format version %d, this build reads version %d", v, Version)
}

// Dir is the recording's directory.
func (s *Store) Dir() string { return s.dir }

// CallFile is where the exchange of a case × model is kept, relative to the
// recording: exchanges/<feature>/<case>--<model>.json.
func CallFile(c Call) string {
	return filepath.Join(ExchangesDir, safeName(c.Feature), safeName(c.Case)+"--"+safeName(c.Model)+".json")
}

// relayFile is where a relayed request's rounds are kept: one file per
// distinct request (key kind, method, path, body), under its path.
func relayFile(k RequestKey) string {
	sum := sha256.Sum256([]byte(k.Key + "\n" + k.Method + "\n" + k.Path + "\n" + k.Digest))
	path, _, _ := strings.Cut(k.Path, "?")
	return filepath.Join(ExchangesDir, relayDir, safeName(strings.ReplaceAll(strings.Trim(path, "/"), "/", "_")),
		safeName(strings.ToLower(k.Method)+"-"+k.Key)+"-"+hex.EncodeToString(sum[:8])+".json")
}

// safeName makes a file name of any text: letters, digits, '.', '_' and
// '-' are kept, anything else becomes '_' and a short hash of the text
// keeps two such names apart.
func safeName(s string) string {
	var b strings.Builder
	changed := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			changed = true
		}
	}
	out := b.String()
	if out == "" || strings.HasPrefix(out, ".") {
		out, changed = "_"+out, true
	}
	if changed {
		sum := sha256.Sum256([]byte(s))
		out += "-" + hex.EncodeToString(sum[:4])
	}
	return out
}

// writeCall writes the exchange of a call (its blobs are in place
// already), and returns the file's path (in the recording's directory).
func (s *Store) writeCall(ex *Exchange) (string, error) {
	rel := CallFile(*ex.Call)
	if err := s.writeJSON(rel, ex); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, rel), nil
}

// appendRelay adds a relayed round to the file of its request, and
// returns that file (relative to the recording). The round is written in
// place before the file's closing "]}", as writeJSON lays it out: a file
// that a day of identical requests made long is never read whole again.
//
// Nothing here waits for the disk (no sync): rounds are written beside
// the traffic, and a sync per exchange let them queue in memory faster
// than the disk synced (20,000 chat exchanges: 60 MB of RSS grew to 526
// MB, where it now stays at 53 MB). A crash of gwconform loses no round
// written; a crash of the machine may lose the last ones.
func (s *Store) appendRelay(r Round) (string, error) {
	rel := relayFile(r.Request.MatchKey())
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	if err := enc.Encode(r); err != nil {
		return "", err
	}
	round := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	s.mu.Lock()
	defer s.mu.Unlock()
	path := filepath.Join(s.dir, rel)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return rel, s.createRelay(rel, &Exchange{Version: Version, Rounds: []Round{r}})
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	at, first, err := roundsEnd(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", rel, err)
	}
	tail := append([]byte(",\n    "), round...)
	if first {
		tail = tail[1:]
	}
	tail = append(tail, "\n  ]\n}\n"...)
	_, err = f.WriteAt(tail, at)
	return rel, err
}

// roundsEnd finds where an exchange file's last round ends: just after it,
// before the blanks, "]" and "}" that close the file; first says the
// rounds are empty.
func roundsEnd(f *os.File) (int64, bool, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, false, err
	}
	n := min(st.Size(), 64)
	tail := make([]byte, n)
	if _, err := f.ReadAt(tail, st.Size()-n); err != nil {
		return 0, false, err
	}
	i := len(tail) - 1
	skip := func() {
		for i >= 0 && strings.ContainsRune(" \t\r\n", rune(tail[i])) {
			i--
		}
	}
	for _, want := range []byte("}]") {
		if skip(); i < 0 || tail[i] != want {
			return 0, false, errors.New("not an exchange file as this build writes it: it does not end with ]}")
		}
		i--
	}
	skip()
	if i < 0 {
		return 0, false, errors.New("not an exchange file as this build writes it")
	}
	return st.Size() - n + int64(i) + 1, tail[i] == '[', nil
}

// writeJSON writes v, indented, to a file of the recording.
func (s *Store) writeJSON(rel string, v any) error {
	b, path, err := s.encodeFile(rel, v)
	if err != nil {
		return err
	}
	return results.WriteBytes(path, b)
}

// createRelay writes a relayed request's first round to its new file,
// whole or not at all, without waiting for the disk (appendRelay).
func (s *Store) createRelay(rel string, ex *Exchange) error {
	b, path, err := s.encodeFile(rel, ex)
	if err != nil {
		return err
	}
	return results.WriteAtomicUnsynced(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// encodeFile lays v out as every file of a recording is, and makes the
// directory of rel.
func (s *Store) encodeFile(rel string, v any) ([]byte, string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // bodies stay as the gateway wrote them
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, "", err
	}
	path := filepath.Join(s.dir, rel)
	return b.Bytes(), path, os.MkdirAll(filepath.Dir(path), 0o755)
}

// Read reads an exchange file, rel being relative to the recording.
func (s *Store) Read(rel string) (*Exchange, error) {
	var ex Exchange
	if err := readVersioned(filepath.Join(s.dir, rel), &ex); err != nil {
		return nil, err
	}
	return &ex, nil
}

// Files lists the exchange files of the recording, relative to it, sorted.
func (s *Store) Files() ([]string, error) {
	var out []string
	root := filepath.Join(s.dir, ExchangesDir)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".json") || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		rel, err := filepath.Rel(s.dir, path)
		if err != nil {
			return err
		}
		out = append(out, rel)
		return nil
	})
	slices.Sort(out)
	return out, err
}

// Blob reads the bytes of a blob (a multipart file part's Part.Blob).
func (s *Store) Blob(name string) ([]byte, error) {
	if strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("bad blob name %q", name)
	}
	return os.ReadFile(filepath.Join(s.dir, BlobsDir, name))
}

// BodyBytes rebuilds the bytes of a recorded body that is not multipart
// (blobs put back; JSON compacted, since its spacing is not kept).
func (s *Store) BodyBytes(b *Body) ([]byte, error) {
	switch {
	case b == nil:
		return nil, nil
	case b.JSON != nil:
		var c bytes.Buffer
		if err := json.Compact(&c, b.JSON); err != nil {
			return nil, err
		}
		return restoreBlobs(c.Bytes(), s.Blob)
	case b.Base64 != "":
		return base64.StdEncoding.DecodeString(b.Base64)
	case b.Multipart != nil:
		return nil, errors.New("a multipart body is kept as parts and cannot be sent again")
	}
	return restoreBlobs([]byte(b.Text), s.Blob)
}

// Chunk is a piece of a recorded response body and when it arrived after
// the request was sent.
type Chunk struct {
	At   time.Duration
	Data []byte
}

// Playback returns what a recorded response sent: the delay before its
// headers, and its body as chunks at their arrival offsets (one per event
// of a stream; a whole body at its end).
func (s *Store) Playback(r *Round) (time.Duration, []Chunk, error) {
	resp := r.Response
	if resp == nil {
		return 0, nil, errors.New("the round has no response")
	}
	headers := resp.Received.Sub(r.Sent)
	if resp.Events != nil {
		chunks := make([]Chunk, len(resp.Events))
		for i, ev := range resp.Events {
			data, err := restoreBlobs([]byte(ev.Text), s.Blob)
			if err != nil {
				return 0, nil, err
			}
			chunks[i] = Chunk{At: time.Duration(ev.OffsetMS) * time.Millisecond, Data: data}
		}
		return headers, chunks, nil
	}
	body, err := s.BodyBytes(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	if len(body) == 0 {
		return headers, nil, nil
	}
	return headers, []Chunk{{At: time.Duration(resp.EndedMS) * time.Millisecond, Data: body}}, nil
}

// Response is a recorded answer as a client reads it, whole and at once:
// a run's replay answers with it, and the judge of a relay's traffic
// judges it.
func (s *Store) Response(r *Round) (*http.Response, error) {
	_, chunks, err := s.Playback(r)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	for _, c := range chunks {
		buf.Write(c.Data)
	}
	status := r.Response.Status
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        Header(r.Response.Header),
		Body:          io.NopCloser(&buf),
		ContentLength: int64(buf.Len()),
	}, nil
}
