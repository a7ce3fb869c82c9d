// A user-supplied name for the path-segment example (after `models`).
let name = "../admin?x"
