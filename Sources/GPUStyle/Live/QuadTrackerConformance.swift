extension QuadTracker: QuadTracking {}
