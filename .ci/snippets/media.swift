// The upload example's file (after `models`).
let videoURL = URL(fileURLWithPath: "/tmp/video.mp4")
