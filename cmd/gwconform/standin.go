package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/refgateway"
)

// standIn is serve's other two roles: a relay that records what a real
// gateway answers any client (--upstream URL --record DIR), and a stand-in
// that answers from such a recording, or from run --record's (--replay).
type standIn struct {
	upstream, record, replay string
	timing                   bool
	// keys name the kind of each client's key, by kind.
	keys map[string]string
	// relayed, when set, is handed each relayed round as it is recorded
	// (serve --judge), with the store that holds its blobs.
	relayed func(r record.Round, file string, store *record.Store)
	// tap is the relay's, once it is built: wait() waits on it.
	tap *record.Tap
	// cap bounds what the relay records and judges of an exchange
	// (record.Tap.Cap; 0: record.DefaultCap).
	cap int64
}

// wait waits until the relay has written every exchange that ended: call
// it once serving has stopped.
func (s *standIn) wait() {
	if s.tap != nil {
		s.tap.Wait()
	}
}

func (s *standIn) role() string {
	switch {
	case s.upstream != "" && s.relayed != nil:
		return "judging relay"
	case s.upstream != "":
		return "recording relay"
	case s.replay != "":
		return "replay stand-in"
	}
	return "reference gateway"
}

// handler checks the flags and returns the handler of the role and what
// its banner says.
func (s *standIn) handler() (http.Handler, func(io.Writer), error) {
	switch {
	case s.upstream != "" && s.replay != "":
		return nil, nil, errors.New("--upstream relays to a gateway and --replay answers from a recording: one or the other")
	case s.upstream != "" && s.record == "":
		return nil, nil, errors.New("--upstream needs --record DIR: the relay is there to record")
	case s.upstream == "" && s.record != "":
		return nil, nil, errors.New("--record needs --upstream URL, the gateway to relay to (run --record records a run)")
	case s.timing && s.replay == "":
		return nil, nil, errors.New("--replay-timing needs --replay DIR")
	case s.upstream != "":
		return s.relay()
	}
	return s.stand()
}

// relay forwards every request to the upstream gateway as it comes, and a
// record.Tap in its transport writes each exchange as it ends: one file
// per distinct request, its rounds appended.
func (s *standIn) relay() (http.Handler, func(io.Writer), error) {
	up, err := url.Parse(s.upstream)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return nil, nil, fmt.Errorf("--upstream %q: want an http or https URL", s.upstream)
	}
	var secrets []string
	for _, k := range s.keys {
		secrets = append(secrets, k)
	}
	store, err := record.Create(s.record, record.Meta{Source: record.SourceRelay, BaseURL: s.upstream, Keys: kindsOf(s.keys)})
	if err != nil {
		return nil, nil, fmt.Errorf("--record: %w", err)
	}
	tap := &record.Tap{Keys: s.keys, Secrets: secrets, Store: store, Relay: true, Bases: record.BasePaths{Default: up.Path}, Cap: cmp.Or(s.cap, record.DefaultCap)}
	if s.relayed != nil {
		tap.Relayed = func(r record.Round, file string) { s.relayed(r, filepath.Join(store.Dir(), file), store) }
	}
	s.tap = tap
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(up)
			// Asked for identity, the gateway sends bodies as text: the
			// recording stays readable (the client's own transport
			// decompresses nothing it did not ask for).
			r.Out.Header.Del("Accept-Encoding")
		},
		Transport: tap,
	}
	banner := func(w io.Writer) {
		fmt.Fprintf(w, "  relaying to:  %s\n  recording to: %s (keys are never recorded; the key flags name each key's kind)\n", up.Redacted(), s.record)
	}
	return rp, banner, nil
}

func kindsOf(keys map[string]string) []string {
	var out []string
	for k, v := range keys {
		if v != "" {
			out = append(out, k)
		}
	}
	return out
}

// replayServer answers requests from a recording.
type replayServer struct {
	store  *record.Store
	ix     *record.Index
	keys   map[string]string
	timing bool
}

func (s *standIn) stand() (http.Handler, func(io.Writer), error) {
	store, meta, err := record.Open(s.replay)
	if err != nil {
		return nil, nil, fmt.Errorf("--replay: %w", err)
	}
	ix, err := record.NewIndex(store)
	if err != nil {
		return nil, nil, fmt.Errorf("--replay: %w", err)
	}
	rs := &replayServer{store: store, ix: ix, keys: s.keys, timing: s.timing}
	banner := func(w io.Writer) {
		from := ""
		if meta.BaseURL != "" {
			from = " of " + meta.BaseURL
		}
		fmt.Fprintf(w, "  answering from: %s (%d recorded answers%s, recorded %s)\n", s.replay, ix.Len(), from, meta.Updated.Format(time.RFC3339))
		if s.timing {
			fmt.Fprintln(w, "  timing:         as recorded (--replay-timing)")
		}
		def := refgateway.DefaultKeys()
		if s.keys[refgateway.KindText] == def.Text && s.keys[refgateway.KindMessages] == def.Messages &&
			s.keys[refgateway.KindImage] == def.Image && s.keys[refgateway.KindAlt] == def.Alt {
			fmt.Fprintf(w, "  keys:           %s, %s, %s, %s name the text, messages, image and alt kinds\n", def.Text, def.Messages, def.Image, def.Alt)
		}
	}
	return rs, banner, nil
}

// maxReplayRequest bounds a request body the stand-in reads to match it:
// as large as the gateway's own form limit is generous.
const maxReplayRequest = 256 << 20

func (s *replayServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReplayRequest))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	k := record.KeyOf(r, body, s.keys, "", record.BasePaths{})
	m, ok := s.ix.Find(k)
	if !ok {
		s.unmatched(w, k)
		return
	}
	headers, chunks, err := s.store.Playback(m.Round)
	if err != nil {
		http.Error(w, "replay: "+err.Error(), http.StatusInternalServerError)
		return
	}
	for name, vs := range record.Header(m.Round.Response.Header) {
		w.Header()[name] = vs
	}
	wait := func(at time.Duration) {
		if s.timing {
			select {
			case <-time.After(time.Until(start.Add(at))):
			case <-r.Context().Done():
			}
		}
	}
	wait(headers)
	w.WriteHeader(m.Round.Response.Status)
	flusher, _ := w.(http.Flusher)
	for _, c := range chunks {
		wait(c.At)
		if _, err := w.Write(c.Data); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	if m.Round.Error != "" {
		// The recorded body ended in an error: end this one the same way,
		// without its proper end, rather than as a whole answer.
		panic(http.ErrAbortHandler)
	}
}

// unmatched answers a request with no recording: 501, not 404 (the spec's
// answer to an unknown model, which a client would take for the gateway's),
// in the spec's error shape, naming the nearest recorded exchange.
func (s *replayServer) unmatched(w http.ResponseWriter, k record.RequestKey) {
	msg := fmt.Sprintf("no recorded exchange matches %s %s (key %s, model %s)", k.Method, k.Path, k.Key, orNone(k.Model))
	if near := s.ix.Nearest(k); near != "" {
		msg += "; nearest: " + near
	} else {
		msg += "; the recording is empty"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotImplemented)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"type": "no_recording", "code": "no_recording", "message": msg}})
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(none)"
	}
	return s
}
