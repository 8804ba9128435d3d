package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance/results"
)

// Bounds of a transcript. A report carries one for every case (hundreds),
// as one self-contained page: each is a few kilobytes at most, and the
// whole exchange stays in the recording.
const (
	maxTranscriptRounds  = 6
	maxTranscriptReqBody = 2 << 10
	maxTranscriptBody    = 4 << 10
	maxTranscriptEvent   = 400
	transcriptHeadEvents = 12 // the first events kept: the stream's start and grammar
	transcriptTailEvents = 4  // the last ones: how it ended
	maxHeaderValue       = 200
)

// transcript makes the bounded transcript of a call's rounds; where is the
// file that keeps them whole ("" when none does).
func transcript(rounds []Round, where string) *results.Transcript {
	t := &results.Transcript{Exchange: filepath.ToSlash(where), Rounds: []results.TranscriptRound{}}
	for i, rd := range rounds {
		if i == maxTranscriptRounds {
			t.OmittedRounds = len(rounds) - i
			break
		}
		tr := results.TranscriptRound{
			Method: rd.Request.Method, Path: rd.Request.Path, Key: rd.Request.Key,
			RequestHeader: headerLines(rd.Request.Header),
			RequestBody:   showBody(rd.Request.Body, maxTranscriptReqBody),
			Error:         results.Truncate(rd.Error, maxTranscriptEvent),
		}
		if rd.Cut != "" {
			tr.Error = results.Truncate("cut by the client: "+rd.Cut, maxTranscriptEvent)
		}
		if resp := rd.Response; resp != nil {
			tr.Status = resp.Status
			tr.ResponseHeader = headerLines(resp.Header)
			tr.ReceivedMS = resp.Received.Sub(rd.Sent).Milliseconds()
			tr.ResponseBody = showBody(resp.Body, maxTranscriptBody)
			evs := resp.Events
			if n := len(evs); n > transcriptHeadEvents+transcriptTailEvents {
				tr.OmittedEvents = n - transcriptHeadEvents - transcriptTailEvents
				evs = append(slices.Clip(evs[:transcriptHeadEvents]), evs[n-transcriptTailEvents:]...)
			}
			for _, ev := range evs {
				tr.Events = append(tr.Events, results.TranscriptEvent{OffsetMS: ev.OffsetMS,
					Text: results.Truncate(describeBlobs(strings.TrimRight(ev.Text, "\r\n")), maxTranscriptEvent)})
			}
		}
		t.Rounds = append(t.Rounds, tr)
	}
	return t
}

// headerLines renders a header as sorted "Name: value" lines.
func headerLines(h map[string][]string) []string {
	var out []string
	for name, vs := range h {
		for _, v := range vs {
			out = append(out, name+": "+results.Truncate(v, maxHeaderValue))
		}
	}
	slices.Sort(out)
	return out
}

// showBody renders a body for a person: JSON indented, multipart as its
// parts, blobs as short references; cut at limit.
func showBody(b *Body, limit int) string {
	if b == nil {
		return ""
	}
	var s string
	switch {
	case b.JSON != nil:
		var out bytes.Buffer
		if json.Indent(&out, b.JSON, "", "  ") == nil {
			s = out.String()
		} else {
			s = string(b.JSON)
		}
	case b.Multipart != nil:
		var lines []string
		for _, p := range b.Multipart {
			switch {
			case p.Blob != "":
				lines = append(lines, fmt.Sprintf("%s=@%s (%s, %d bytes) %s", p.Name, p.Filename, p.ContentType, p.Bytes, describeBlobs(blobPrefix+p.Blob)))
			default:
				lines = append(lines, p.Name+"="+p.Value)
			}
		}
		s = "multipart/form-data:\n" + strings.Join(lines, "\n")
	case b.Base64 != "":
		s = fmt.Sprintf("<%d bytes, not text>", b.Bytes)
	default:
		s = b.Text
	}
	return results.Truncate(describeBlobs(s), limit)
}

// RoundTranscript is the bounded transcript of one round; where is the
// file that keeps it whole. The judge of a relay's traffic shows each
// observed exchange with it.
func RoundTranscript(r Round, where string) *results.Transcript {
	return transcript([]Round{r}, where)
}
