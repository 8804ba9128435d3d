package results

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// WriteAtomic replaces path with what write produces, through a temporary
// file in the same directory: a reader (a CI upload, a browser), or a run
// killed meanwhile, sees the old file or the new one, never half of one.
// Every output file the suite rewrites goes through here.
func WriteAtomic(path string, write func(io.Writer) error) error {
	return writeAtomic(path, write, true)
}

// WriteAtomicUnsynced is WriteAtomic without waiting for the disk: a
// crash of the process leaves the old file or the new one, a crash of the
// machine may leave neither (a relay's recording, written beside the
// traffic it must not hold up).
func WriteAtomicUnsynced(path string, write func(io.Writer) error) error {
	return writeAtomic(path, write, false)
}

func writeAtomic(path string, write func(io.Writer) error, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if err := write(tmp); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	return Place(tmp, path, sync)
}

// Place puts a written temporary file over path: synced to the disk when
// sync, closed, readable by all, renamed. On an error the temporary file
// is removed and path is left as it was.
func Place(tmp *os.File, path string, sync bool) error {
	var err error
	if sync {
		err = tmp.Sync()
	}
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// WriteBytes is WriteAtomic of a byte slice.
func WriteBytes(path string, b []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
