package results

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/gwconform/gwconform/conformance/vocab"
)

// Writer appends results to a JSONL file, one line per Write, flushed and
// synced as it goes so that a killed run keeps every finished case.
// It is safe for concurrent use.
type Writer struct {
	mu sync.Mutex
	f  *os.File
}

// Create truncates path and returns a Writer on it.
func Create(path string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f}, nil
}

// Append opens path for appending (run --resume adds the calls it makes
// after the results it kept) and returns a Writer on it.
func Append(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f}, nil
}

// line encodes a result as one line of results.jsonl; reasons are always
// an array, never null.
func line(r Result) ([]byte, error) {
	if r.Reasons == nil {
		r.Reasons = []vocab.Reason{}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Write appends one result as a line and flushes it to the file.
func (w *Writer) Write(r Result) error {
	b, err := line(r)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(b); err != nil {
		return err
	}
	return nil
}

// Close syncs and closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.f.Sync(); err != nil {
		w.f.Close()
		return err
	}
	return w.f.Close()
}

// WriteFile replaces path with rs, one line each (WriteAtomic: a reader,
// or a run killed meanwhile, sees the old file or the new one).
func WriteFile(path string, rs []Result) error {
	return WriteAtomic(path, func(w io.Writer) error {
		for _, r := range rs {
			b, err := line(r)
			if err != nil {
				return err
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
}

// Read parses a results.jsonl stream. A torn last line (a run killed mid-write)
// is ignored; any other malformed line is an error naming its line number.
func Read(r io.Reader) ([]Result, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	var out []Result
	var pending error
	line := 0
	for sc.Scan() {
		line++
		if pending != nil {
			return nil, pending
		}
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var res Result
		if err := json.Unmarshal(b, &res); err != nil {
			pending = fmt.Errorf("results line %d: %w", line, err)
			continue
		}
		out = append(out, res)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadFile reads a results.jsonl file.
func ReadFile(path string) ([]Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}
