import { useState, type DragEvent } from 'react';

/** Files dragged from the desktop (not text or links dragged inside the page). */
export function draggedFiles(e: DragEvent): boolean {
  return [...e.dataTransfer.types].includes('Files');
}

/**
 * A drop target for files from the user's desktop (the server page's Files tab, the viewer): whether
 * files are being dragged over it, and the handlers to spread on it. Text or links dragged inside the
 * page are left alone, so the browser's own handling of them is not taken away.
 */
export function useFileDrop(onFiles: (files: File[]) => void): {
  over: boolean;
  handlers: { onDragOver: (e: DragEvent) => void; onDragLeave: () => void; onDrop: (e: DragEvent) => void };
} {
  const [over, setOver] = useState(false);
  return {
    over,
    handlers: {
      onDragOver: (e) => { if (draggedFiles(e)) { e.preventDefault(); setOver(true); } },
      onDragLeave: () => setOver(false),
      onDrop: (e) => {
        if (!draggedFiles(e)) return;
        e.preventDefault();
        setOver(false);
        onFiles([...e.dataTransfer.files]);
      },
    },
  };
}
