//go:build cgo && !ci && !wasm && !js && !android && !ios && !mobile

package ui

import "github.com/go-gl/glfw/v3.3/glfw"

// workArea is the size, in pixels, of the primary screen less its panels
// and docks, as GLFW reports it. Call it on the main thread once the
// desktop driver has started GLFW (the app's OnStarted); a GLFW error
// (which the binding raises as a panic) means it is unknown.
func workArea() (w, h int, ok bool) {
	defer func() {
		if recover() != nil {
			w, h, ok = 0, 0, false
		}
	}()
	m := glfw.GetPrimaryMonitor()
	if m == nil {
		return 0, 0, false
	}
	_, _, w, h = m.GetWorkarea()
	return w, h, w > 0 && h > 0
}
