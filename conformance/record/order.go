package record

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
)

// Sent is the order in which a recording's rounds were sent: where each
// round is kept, a few bytes a round, never the round itself. The judge of
// a recording reads the rounds one at a time in this order.
//
// Why an order of positions, not a merge of the files: a relay appends a
// round to its request's file when the round ends, so a file's rounds are
// in the order they ended, not sent (two identical requests in flight at
// once), and a merge of the files would need each sorted anyway. An index
// written by the relay would be missing from every recording made before
// it, and from a recording's rounds written before it. One pass over the
// files, each read as a stream, gives the order for any recording: the
// rounds of all files sorted by when they were sent, ties in file and
// round order, as reading them all and sorting did.
type Sent struct {
	store *Store
	files []string
	at    []position
}

// position is where one round is kept: its file, and the byte offset in it
// where it begins (after the "[" or "," before it).
type position struct {
	sent   int64 // Round.Sent, Unix nanoseconds
	file   int32
	offset int64
}

// Kept is a round read back, and its file, relative to the recording.
type Kept struct {
	Round Round
	File  string
}

// Sent reads every exchange file of the recording, one round at a time, and
// returns the order in which their rounds were sent. Every file is read as
// Read reads it (its version, no unknown field), so that a recording that
// cannot be judged whole is refused before the first round is.
func (s *Store) Sent() (*Sent, error) {
	files, err := s.Files()
	if err != nil {
		return nil, err
	}
	o := &Sent{store: s, files: files}
	for i, f := range files {
		err := s.scan(f, func(r *Round, offset int64) {
			o.at = append(o.at, position{sent: r.Sent.UnixNano(), file: int32(i), offset: offset})
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(o.at, func(a, b position) int {
		switch {
		case a.sent < b.sent:
			return -1
		case a.sent > b.sent:
			return 1
		}
		return 0
	})
	return o, nil
}

// Len is the number of rounds.
func (o *Sent) Len() int { return len(o.at) }

// All reads the rounds back in the order they were sent, one at a time.
func (o *Sent) All() iter.Seq2[Kept, error] {
	return func(yield func(Kept, error) bool) {
		var f *os.File
		open := int32(-1)
		defer func() {
			if f != nil {
				f.Close()
			}
		}()
		for _, p := range o.at {
			rel := o.files[p.file]
			if p.file != open {
				if f != nil {
					f.Close()
				}
				var err error
				if f, err = os.Open(filepath.Join(o.store.dir, rel)); err != nil {
					yield(Kept{File: rel}, err)
					return
				}
				open = p.file
			}
			r, err := readRoundAt(f, p.offset)
			if err != nil {
				yield(Kept{File: rel}, fmt.Errorf("%s: %w", rel, err))
				return
			}
			if !yield(Kept{Round: r, File: rel}, nil) {
				return
			}
		}
	}
}

// readRoundAt decodes the round that begins at offset: blanks and the
// comma before it skipped.
func readRoundAt(f *os.File, offset int64) (Round, error) {
	br := bufio.NewReader(io.NewSectionReader(f, offset, 1<<62))
	for {
		c, err := br.ReadByte()
		if err != nil {
			return Round{}, err
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != ',' {
			br.UnreadByte()
			break
		}
	}
	var r Round
	dec := json.NewDecoder(br)
	dec.DisallowUnknownFields()
	return r, dec.Decode(&r)
}

// scan reads an exchange file as a stream, handing each round and its
// offset to each, with Read's checks: the version this build reads, and no
// unknown field.
func (s *Store) scan(rel string, each func(r *Round, offset int64)) error {
	f, err := os.Open(filepath.Join(s.dir, rel))
	if err != nil {
		return err
	}
	defer f.Close()
	fail := func(err error) error { return fmt.Errorf("%s: %w", filepath.Join(s.dir, rel), err) }
	dec := json.NewDecoder(bufio.NewReader(f))
	dec.DisallowUnknownFields()
	if err := expectDelim(dec, '{'); err != nil {
		return fail(err)
	}
	version := 0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		switch t {
		case "version":
			if err = dec.Decode(&version); err == nil && version != Version {
				return fail(versionError(version))
			}
		case "call":
			var c *Call
			err = dec.Decode(&c)
		case "rounds":
			err = scanRounds(dec, each)
		default:
			err = fmt.Errorf("json: unknown field %q", t)
		}
		if err != nil {
			return fail(err)
		}
	}
	if version != Version {
		return fail(versionError(version))
	}
	return nil
}

func scanRounds(dec *json.Decoder, each func(r *Round, offset int64)) error {
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	for dec.More() {
		offset := dec.InputOffset()
		var r Round
		if err := dec.Decode(&r); err != nil {
			return err
		}
		each(&r, offset)
	}
	return expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != want {
		return errors.New("not an exchange file: want " + want.String())
	}
	return nil
}
