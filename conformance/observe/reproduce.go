package observe

import (
	"bytes"
	"errors"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"path/filepath"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/results"
)

// Reproduce rebuilds the request an observed result judged from the
// recording that keeps it whole (its transcript's exchange file), as a
// case and its rendered request: what execute.CurlCommand writes as a
// command that sends it again, the key as its variable.
func Reproduce(r results.Result) (*catalog.Case, *catalog.Rendered, error) {
	if !r.Observed || r.Transcript == nil || r.Transcript.Exchange == "" {
		return nil, nil, errors.New("the result keeps no recorded exchange to send again")
	}
	file := filepath.FromSlash(r.Transcript.Exchange)
	dir, _, ok := strings.Cut(file, string(filepath.Separator)+record.ExchangesDir+string(filepath.Separator))
	if !ok {
		return nil, nil, fmt.Errorf("%s is not a file of a recording", file)
	}
	store, _, err := record.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	rel, err := filepath.Rel(dir, file)
	if err != nil {
		return nil, nil, err
	}
	ex, err := store.Read(rel)
	if err != nil {
		return nil, nil, err
	}
	for _, rd := range ex.Rounds {
		if rd.Sent.Equal(r.Started) {
			return rebuild(rd, store)
		}
	}
	return nil, nil, fmt.Errorf("%s holds no round sent at %s", file, r.Started)
}

// rebuild is a recorded request as a case (its key kind and credential)
// and its rendered request (its headers and body, blobs put back).
func rebuild(rd record.Round, store *record.Store) (*catalog.Case, *catalog.Rendered, error) {
	rq := rd.Request
	cs := &catalog.Case{Key: catalog.KeyKind(rq.Key)}
	switch rq.Key {
	case record.KeyNone:
		cs.Request.Auth = catalog.AuthNone
	case record.KeyOther:
		cs.Request.Auth = catalog.AuthInvalid
	}
	out := &catalog.Rendered{Method: rq.Method, Path: rq.Path, Header: record.Header(rq.Header)}
	out.Header.Del("User-Agent") // curl's own, as the command sends it
	switch b := rq.Body; {
	case b == nil:
	case b.Multipart != nil:
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		if err := w.SetBoundary(catalog.Boundary); err != nil {
			return nil, nil, err
		}
		for _, p := range b.Multipart {
			if !isFile(p) {
				if err := w.WriteField(p.Name, p.Value); err != nil {
					return nil, nil, err
				}
				continue
			}
			data, err := store.Blob(p.Blob)
			if err != nil {
				return nil, nil, err
			}
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.Name, p.Filename))
			h.Set("Content-Type", p.ContentType)
			part, err := w.CreatePart(h)
			if err != nil {
				return nil, nil, err
			}
			part.Write(data)
		}
		if err := w.Close(); err != nil {
			return nil, nil, err
		}
		out.Body = body.Bytes()
		out.Header.Set("Content-Type", w.FormDataContentType())
	default:
		body, err := store.BodyBytes(b)
		if err != nil {
			return nil, nil, err
		}
		out.Body = body
	}
	return cs, out, nil
}
