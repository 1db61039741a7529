import { useEffect, useState } from 'react';
import type { ScreenSize } from '../geometry.js';

interface ResizableStream {
  readonly columns?: number;
  readonly rows?: number;
  on(event: 'resize', listener: () => void): unknown;
  off(event: 'resize', listener: () => void): unknown;
}

function sizeOf(stream: ResizableStream): ScreenSize {
  return { columns: stream.columns || 80, rows: stream.rows || 24 };
}

/** The terminal's size, following resizes. */
export function useTerminalSize(stream: ResizableStream): ScreenSize {
  const [size, setSize] = useState(() => sizeOf(stream));
  useEffect(() => {
    const onResize = (): void => setSize(sizeOf(stream));
    stream.on('resize', onResize);
    return () => {
      stream.off('resize', onResize);
    };
  }, [stream]);
  return size;
}
