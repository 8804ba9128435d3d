package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/record"
	reportv1 "github.com/gwconform/gwconform/report/apis/v1"
)

// replayed is the recording a run --replay answers from.
type replayed struct {
	dir  string
	meta record.Meta
}

// replayKey is the stand-in key of each kind a replay plans and sends
// with: a replay needs no real key, only the kinds the recording had.
func replayKey(kind string) string { return "gwconform-replay-" + kind + "-key" }

// useReplay points the target at the recording in s.replay: the run
// plans from the recording's key kinds (no key needed), sends nothing (no
// gateway, no preflight) and renders the URL-reference case with the
// image URL, and the models with the names, the recording used, so that
// its requests are unchanged.
func useReplay(s *settings, stderr io.Writer) error {
	store, meta, err := record.Open(s.replay)
	if err != nil {
		return fmt.Errorf("--replay: %w", err)
	}
	keys := map[string]string{}
	s.target.Keys = map[catalog.KeyKind]string{}
	s.target.Rejected = map[catalog.KeyKind]string{}
	for _, k := range meta.Keys {
		keys[k] = replayKey(k)
		s.target.Keys[catalog.KeyKind(k)] = replayKey(k)
	}
	for k, why := range meta.Rejected {
		s.target.Rejected[catalog.KeyKind(k)] = why
	}
	s.target.BaseURL = meta.BaseURL
	if s.target.BaseURL == "" {
		s.target.BaseURL = "http://recording.invalid"
	}
	s.target.SetKindBases(meta.KindBaseURLs)
	s.target.PublicImageURL = meta.PublicImageURL
	s.target.Names = plan.ModelNames{} // the recorded run's names, or the spec's ids
	if len(meta.ModelNames) > 0 {
		if err := json.Unmarshal(meta.ModelNames, &s.target.Names); err != nil {
			return fmt.Errorf("--replay: %s: model_names: %w", record.MetaFile, err)
		}
	}
	s.target.Headers, s.target.KeyHeaders, s.target.SecretValues = nil, nil, nil
	s.target.Client = &http.Client{Transport: &record.Replay{Store: store, Keys: keys, Bases: basePaths(s.target)}}
	// A recorded 429 is answered by its recorded retry at once: the wait
	// it asked for is over, and the recording holds what came after it.
	s.options.RetryWait, s.options.MaxRetryWait = time.Millisecond, time.Millisecond
	s.options.Unpaced = true // a replay sends nothing: no limit to keep to
	s.replayed = &replayed{dir: s.replay, meta: meta}
	from := ""
	if meta.BaseURL != "" {
		from = " from " + meta.BaseURL
	}
	fmt.Fprintf(stderr, "replaying the recording %s (recorded %s%s): no request is sent, no key is needed\n",
		s.replay, meta.Updated.Format("2006-01-02 15:04 MST"), from)
	return nil
}

// basePaths are the paths of a target's base URLs, which recorded paths
// leave out.
func basePaths(t plan.Target) record.BasePaths {
	path := func(base string) string {
		u, err := url.Parse(base)
		if err != nil {
			return ""
		}
		return u.Path
	}
	b := record.BasePaths{Default: path(t.BaseURL), Kinds: map[string]string{}}
	for k, base := range t.KindBaseURLs {
		b.Kinds[string(k)] = path(base)
	}
	return b
}

// startRecording puts a record.Tap in front of the session's transport:
// it keeps a transcript of every call for the reports and, under --record,
// writes each call's whole exchange to the recording. A replay needs no
// tap: its transcripts are the recorded rounds it answered with.
func startRecording(ss *session) error {
	if ss.replay != "" {
		return nil
	}
	client := ss.target.Client
	if client == nil {
		client = &http.Client{}
	}
	keys := map[string]string{}
	for k, v := range ss.target.Keys {
		keys[string(k)] = v
	}
	tap := &record.Tap{Next: client.Transport, Bases: basePaths(ss.target), Keys: keys, Secrets: ss.target.Secrets()}
	if ss.record != "" {
		meta := record.Meta{Source: record.SourceRun, SuiteVersion: suiteVersion(), CatalogHash: ss.suite.Catalog.Hash(),
			BaseURL: ss.target.BaseURL, KindBaseURLs: ss.target.KindBaseNames(), PublicImageURL: ss.target.PublicImageURL, Keys: []string{}, Rejected: map[string]string{}}
		for _, k := range catalog.KeyKinds {
			if ss.target.Keys[k] != "" {
				meta.Keys = append(meta.Keys, string(k))
			}
		}
		for k, why := range ss.target.Rejected {
			meta.Rejected[string(k)] = why
		}
		if names := ss.target.Names; len(names.Given) > 0 || len(names.Entries) > 0 {
			var err error
			if meta.ModelNames, err = json.Marshal(names); err != nil {
				return fmt.Errorf("--record: %w", err)
			}
		}
		store, err := record.Create(ss.record, meta)
		if err != nil {
			return fmt.Errorf("--record: %w", err)
		}
		tap.Store = store
	}
	c := *client
	c.Transport = tap
	ss.target.Client = &c
	return nil
}

// reportReplay is the report's account of a replay, nil for a live run.
func (s *settings) reportReplay() *reportv1.Replay {
	if s.replayed == nil {
		return nil
	}
	return &reportv1.Replay{Recording: s.replayed.dir, Recorded: s.replayed.meta.Updated, BaseURL: s.replayed.meta.BaseURL}
}
