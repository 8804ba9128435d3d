package refgateway

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxFormFieldSize bounds a text field of a multipart form.
const maxFormFieldSize = 1 << 20

// edits answers POST /v1/images/edits (4.5): a JSON body or a multipart
// form, which are alternatives (rule 3), answered with the image result of
// 2.2 or, with stream true, the image stream of 6.1 (image_edit.* events).
func (c *call) edits() {
	ct, params, err := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	if c.r.Header.Get("Content-Type") == "" {
		ct, err = "application/json", nil
	}
	if err != nil {
		c.fail(http.StatusBadRequest, "bad Content-Type: "+err.Error())
		return
	}
	switch ct {
	case "application/json":
		var req imageRequest
		if !c.readJSON(&req) {
			return
		}
		c.runImages(&req, nil, true)
	case "multipart/form-data":
		if params["boundary"] == "" {
			c.fail(http.StatusBadRequest, "multipart body without a boundary")
			return
		}
		if c.r.ContentLength > c.g.maxBody {
			c.fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body of %d bytes exceeds the limit of %d bytes", c.r.ContentLength, c.g.maxBody))
			return
		}
		c.r.Body = http.MaxBytesReader(c.w, c.r.Body, c.g.maxBody)
		req, files, err := readMultipart(multipart.NewReader(c.r.Body, params["boundary"]))
		if err != nil {
			c.answerErr(err)
			return
		}
		c.runImages(req, files, true)
	default:
		c.fail(http.StatusBadRequest, fmt.Sprintf("unsupported Content-Type %q: use application/json or multipart/form-data", ct))
	}
}

// formFiles are the file parts of a multipart edit.
type formFiles struct {
	images [][]byte
	fields []string // the form name of each image: image or image[]
	mask   []byte
	hasMsk bool
}

// readMultipart reads an edit form part by part (never buffering more than
// the body limit, which the caller's MaxBytesReader enforces).
func readMultipart(mr *multipart.Reader) (*imageRequest, *formFiles, error) {
	req := &imageRequest{}
	files := &formFiles{}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, wrapMultipart(err)
		}
		name := p.FormName()
		switch name {
		case "image", "image[]", "mask":
			b, err := io.ReadAll(p)
			if err != nil {
				return nil, nil, wrapMultipart(err)
			}
			if name == "mask" {
				if files.hasMsk {
					return nil, nil, bad("mask", "more than one mask field")
				}
				files.mask, files.hasMsk = b, true
			} else {
				files.images = append(files.images, b)
				files.fields = append(files.fields, name)
			}
			continue
		}
		b, err := io.ReadAll(io.LimitReader(p, maxFormFieldSize+1))
		if err != nil {
			return nil, nil, wrapMultipart(err)
		}
		if len(b) > maxFormFieldSize {
			return nil, nil, bad(name, "form field %q is too long", name)
		}
		v := string(b)
		intField := func(dst **int) error {
			i, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return bad(name, "%s must be an integer, got %q", name, v)
			}
			*dst = &i
			return nil
		}
		switch name {
		case "model":
			req.Model = &v
		case "prompt":
			req.Prompt = &v
		case "size":
			req.Size = &v
		case "quality":
			req.Quality = &v
		case "background":
			req.Background = &v
		case "output_format":
			req.OutputFormat = &v
		case "response_format":
			req.ResponseFormat = &v
		case "n":
			err = intField(&req.N)
		case "output_compression":
			err = intField(&req.OutputCompression)
		case "partial_images":
			err = intField(&req.PartialImages)
		case "stream":
			bv, perr := strconv.ParseBool(strings.TrimSpace(v))
			if perr != nil {
				err = bad(name, "stream must be true or false, got %q", v)
			}
			req.Stream = &bv
		case "images[][file_id]", "mask[file_id]", "file_id":
			return nil, nil, bad(name, "file_id references are not supported: send the image itself")
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return req, files, nil
}

func wrapMultipart(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return err
	}
	return bad("", "malformed multipart body: %v", err)
}

// readEditInputs decodes the reference images and the mask of an edit:
// at least one reference (rule 1), no file_id (rule 2), and several
// references or a mask for the 2.5 models only (rule 5).
func (c *call) readEditInputs(job *imageJob, req *imageRequest, files *formFiles, img2 bool) error {
	var raws [][]byte
	var maskRaw []byte
	hasMask := false
	fileRefs := 0 // references by file_id alone that a fault let through
	if files != nil {
		if len(req.Images) > 0 || req.Mask != nil {
			return bad("images", "multipart edits take image files, not images[].image_url")
		}
		raws = files.images
		maskRaw, hasMask = files.mask, files.hasMsk
	} else {
		for i, ref := range req.Images {
			hasURL := ref.ImageURL != nil && *ref.ImageURL != ""
			if ref.FileID != nil {
				r := ruleNoFileID
				if !hasURL {
					r = ruleFileIDAlone
				}
				if err := c.violation(r, fmt.Sprintf("images[%d].file_id", i), "images[].file_id is not supported: send image_url"); err != nil {
					return err
				}
				if !hasURL {
					// Let through: taken as a stored file, which this
					// gateway does not keep, so the edit is served
					// without it (as a generation).
					fileRefs++
					continue
				}
				// Let through beside an image_url: the file_id is ignored.
			}
			if !hasURL {
				return bad(fmt.Sprintf("images[%d].image_url", i), "images[%d].image_url is required", i)
			}
			b, err := c.fetchImageURL(*ref.ImageURL, fmt.Sprintf("images[%d].image_url", i))
			if err != nil {
				return err
			}
			raws = append(raws, b)
		}
		if mk := req.Mask; mk != nil {
			hasURL := mk.ImageURL != nil && *mk.ImageURL != ""
			if mk.FileID != nil {
				if err := c.violation(ruleNoFileID, "mask.file_id", "mask.file_id is not supported: send mask.image_url"); err != nil {
					return err
				}
				// Let through: the file_id is ignored; a mask by file_id
				// alone is left out.
			}
			switch {
			case hasURL:
				b, err := c.fetchImageURL(*mk.ImageURL, "mask.image_url")
				if err != nil {
					return err
				}
				maskRaw, hasMask = b, true
			case mk.FileID == nil:
				return bad("mask.image_url", "mask.image_url is required")
			}
		}
	}
	if len(raws) == 0 {
		if fileRefs == 0 {
			if err := c.violation(ruleReferenceRequired, "image", "an edit needs at least one reference image (image, image[] or images[].image_url)"); err != nil {
				return err
			}
		}
		hasMask = false // let through: nothing to mask, served like a generation
	}
	if img2 && len(raws) > 1 {
		return bad("image", "%s takes one reference image", modelImage2)
	}
	if img2 && hasMask {
		return bad("mask", "%s takes no mask", modelImage2)
	}
	for i, b := range raws {
		img, err := decodeInput(b)
		if err != nil {
			return bad("image", "reference image %d: %v", i, err)
		}
		job.refs = append(job.refs, inputImage{img: img, raw: b})
	}
	if hasMask {
		img, err := decodeInput(maskRaw)
		if err != nil {
			return bad("mask", "mask: %v", err)
		}
		if img.Bounds().Size() != job.refs[0].img.Bounds().Size() {
			return bad("mask", "mask is %v but the reference image is %v: they must have the same dimensions",
				img.Bounds().Size(), job.refs[0].img.Bounds().Size())
		}
		job.mask = &inputImage{img: img, raw: maskRaw}
	}
	return nil
}

// fetchImageURL reads a data URL or fetches an HTTPS URL.
func (c *call) fetchImageURL(s, param string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		meta, data, ok := strings.Cut(rest, ",")
		if !ok || !strings.HasSuffix(meta, ";base64") {
			return nil, bad(param, "%s: a data URL must have the form data:<media_type>;base64,<data>", param)
		}
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(data); err != nil {
				return nil, bad(param, "%s: invalid base64 data", param)
			}
		}
		return b, nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, bad(param, "%s must be a data URL or an https URL", param)
	}
	ctx, cancel := context.WithTimeout(c.r.Context(), 60*time.Second)
	defer cancel()
	rq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, bad(param, "%s: %v", param, err)
	}
	resp, err := c.g.client.Do(rq)
	if err != nil {
		return nil, bad(param, "%s: could not fetch the image: %v", param, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, bad(param, "%s: fetching the image gave HTTP %d", param, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.g.maxBody+1))
	if err != nil {
		return nil, bad(param, "%s: could not read the image: %v", param, err)
	}
	if int64(len(b)) > c.g.maxBody {
		return nil, bad(param, "%s: the image is larger than %d bytes", param, c.g.maxBody)
	}
	return b, nil
}
