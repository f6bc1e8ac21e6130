package snapshot

// The entries of a snapshot directory (documents.go reads their files),
// symbolic links followed within it: a ConfigMap mounted as a volume lays
// its files out as links into a hidden directory of the mount. A link out
// of the directory, one that cannot be followed, and one to a directory
// read already (a loop) are refused by name.

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// dirWalker follows the entries of one snapshot directory.
type dirWalker struct {
	l *Loader
	// root is the directory with its links resolved; read the
	// directories read so far, resolved.
	root string
	read map[string]bool
}

func (l *Loader) newDirWalker(dir string) (*dirWalker, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, err
	}
	return &dirWalker{l: l, root: root, read: map[string]bool{root: true}}, nil
}

// entry is one entry of a directory, a link followed.
type entry struct {
	path string // as found (under the directory given)
	name string
	dir  bool
	// regular: a regular file (else neither a file nor a directory).
	regular bool
}

// entries lists the directory p, in lexical order, without hidden
// entries, following links within the root. Refused links are reported.
func (w *dirWalker) entries(p string) ([]entry, error) {
	des, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	var out []entry
	for _, d := range des {
		if strings.HasPrefix(d.Name(), ".") {
			continue
		}
		e := entry{path: filepath.Join(p, d.Name()), name: d.Name(), dir: d.IsDir(), regular: d.Type().IsRegular()}
		if d.Type()&fs.ModeSymlink != 0 && !w.follow(&e) {
			continue
		}
		if e.dir && !w.enter(e.path) {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// follow resolves a link; false when it is refused (and reported).
func (w *dirWalker) follow(e *entry) bool {
	target, err := filepath.EvalSymlinks(e.path)
	if err == nil {
		target, err = filepath.Abs(target)
	}
	if err != nil {
		w.l.report.Errorf(e.path, 0, "", "", "a symbolic link that cannot be followed (%v): skipped", err)
		return false
	}
	if rel, err := filepath.Rel(w.root, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		w.l.report.Errorf(e.path, 0, "", "", "a symbolic link to %s, outside the snapshot directory %s: skipped", target, w.root)
		return false
	}
	fi, err := os.Stat(target)
	if err != nil {
		w.l.report.Errorf(e.path, 0, "", "", "a symbolic link that cannot be followed (%v): skipped", err)
		return false
	}
	e.dir, e.regular = fi.IsDir(), fi.Mode().IsRegular()
	return true
}

// enter reports whether the directory p is read: not when it was read
// already, through a link (a loop, or another way to it), which is
// reported.
func (w *dirWalker) enter(p string) bool {
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		w.l.report.Errorf(p, 0, "", "", "cannot read: %v; skipped", err)
		return false
	}
	if w.read[real] {
		w.l.report.Errorf(p, 0, "", "", "a directory read already, %s (a symbolic link loop, or another link to it): skipped", real)
		return false
	}
	w.read[real] = true
	return true
}
