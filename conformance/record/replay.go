package record

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptrace"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gwconform/gwconform/conformance/vocab"
)

// SkipError is a Replay's answer for a call it cannot replay: no
// recording, a changed request, or a recording the recording run itself
// cut short. The engine reports the call as skipped with Reason.
type SkipError struct{ Reason vocab.Reason }

func (e *SkipError) Error() string { return e.Reason.String() }

// Replay is an http.RoundTripper that answers the calls of a run from a
// recording, with no network: each request of a call (its Log in the
// request's context) is matched to a round of the call's exchange by key
// kind, method, path, model and canonical body, in the order they were
// recorded, and answered with the recorded status, headers and body (a
// stream as its recorded events).
type Replay struct {
	Store *Store
	// Keys maps each key kind to the key the replaying run sends for it
	// (any value: a replay needs no real key), to tell the kinds apart.
	Keys map[string]string
	// Bases are the paths of the replaying target's base URLs.
	Bases BasePaths

	mu    sync.Mutex
	cache map[string]*Exchange
}

// RoundTrip implements http.RoundTripper.
func (r *Replay) RoundTrip(req *http.Request) (*http.Response, error) {
	log := logFrom(req.Context())
	if log == nil {
		return nil, errors.New("replay: a request outside any case has no recording (a replay sends nothing)")
	}
	rel := CallFile(log.call)
	ex, err := r.load(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &SkipError{vocab.Reason{Check: vocab.CheckNoRecording, Where: filepath.ToSlash(rel),
			Expected: "a recorded exchange", Actual: "none in " + r.Store.Dir(), Message: "no recording"}}
	}
	if err != nil {
		return nil, err
	}
	body, err := drain(req)
	if err != nil {
		return nil, err
	}
	key := KeyOf(req, body, r.Keys, log.call.Key, r.Bases)
	i, why := log.match(ex, key)
	where := filepath.Join(r.Store.Dir(), rel)
	if i < 0 {
		return nil, &SkipError{vocab.Reason{Check: vocab.CheckRecordingStale, Where: filepath.ToSlash(where),
			Expected: "the request as recorded", Actual: why, Message: "recording stale"}}
	}
	rd := ex.Rounds[i]
	log.serve(where, rd)
	switch {
	case rd.Cut != "":
		return nil, &SkipError{vocab.Reason{Check: vocab.CheckRecordingCut, Where: filepath.ToSlash(where), Actual: rd.Cut,
			Message: "recording cut short: the recording run ended this call itself, so there is nothing to judge"}}
	case rd.Response == nil:
		return nil, errors.New(rd.Error)
	}
	resp, err := r.Store.Response(&rd) // a run's replay does not wait: only serve --replay-timing does
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", where, err)
	}
	resp.Request = req
	// The engine's watchdog moves through its phases on these trace
	// events, as it does on a live connection.
	if tr := httptrace.ContextClientTrace(req.Context()); tr != nil {
		if tr.GotConn != nil {
			tr.GotConn(httptrace.GotConnInfo{})
		}
		if tr.GotFirstResponseByte != nil {
			tr.GotFirstResponseByte()
		}
	}
	log.mu.Lock()
	if log.times == nil {
		log.times = map[*http.Response]Times{}
	}
	log.times[resp] = Times{Sent: rd.Sent, Received: rd.Response.Received}
	log.mu.Unlock()
	return resp, nil
}

// Header turns a recorded header back into an http.Header.
func Header(h map[string][]string) http.Header {
	out := http.Header{}
	for k, vs := range h {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// load reads (once) the exchange file of a call.
func (r *Replay) load(rel string) (*Exchange, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ex, ok := r.cache[rel]; ok {
		return ex, nil
	}
	ex, err := r.Store.Read(rel)
	if err != nil {
		return nil, err
	}
	if r.cache == nil {
		r.cache = map[string]*Exchange{}
	}
	r.cache[rel] = ex
	return ex, nil
}

// match finds the round that answers key: the first recorded round with
// the same key not yet served in this call, or, when all are served (more
// retries than recorded), the last that matches. When none matches, why
// says how the request differs from the first round not yet served.
func (l *Log) match(ex *Exchange, key RequestKey) (int, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	last, nearest := -1, -1
	for i, rd := range ex.Rounds {
		if rd.Request.MatchKey() != key {
			if nearest < 0 && !l.used[i] {
				nearest = i
			}
			continue
		}
		if !l.used[i] {
			if l.used == nil {
				l.used = map[int]bool{}
			}
			l.used[i] = true
			return i, ""
		}
		last = i
	}
	if last >= 0 {
		return last, ""
	}
	if nearest < 0 {
		return -1, "more requests than recorded"
	}
	return -1, fmt.Sprintf("round %d differs: %s", nearest+1, strings.Join(key.differences(ex.Rounds[nearest].Request.MatchKey()), "; "))
}

// serve notes a round a replay answered, for the call's transcript.
func (l *Log) serve(source string, rd Round) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.source = source
	l.served = append(l.served, rd)
}
